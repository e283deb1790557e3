import { describe, it, expect } from 'vitest';
import { liveStyle } from './live-style';

describe('liveStyle', () => {
  it('writes through the CSSOM and never a style attribute in markup', () => {
    const el = document.createElement('div');
    const action = liveStyle(el, { height: '880000px', transform: 'translateY(44px)' });
    expect(el.style.height).toBe('880000px');
    expect(el.style.transform).toBe('translateY(44px)');
    action.update({ height: '88px', transform: null });
    expect(el.style.height).toBe('88px');
    expect(el.style.transform).toBe('');
  });
});
