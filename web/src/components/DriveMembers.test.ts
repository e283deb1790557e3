import { describe, it, expect, vi, afterEach } from 'vitest';
import { render, cleanup, fireEvent } from '@testing-library/svelte';
import DriveMembers from './DriveMembers.svelte';
import { DriveSettingsModel } from '../lib/state/drive-settings.svelte';
import type { DrivesApi } from '../lib/services/drives';
import type { Drive, DriveMember } from '../lib/api/schema.gen';

afterEach(cleanup);

/** Lets the model's pending request (and its follow-ups) finish. */
const settle = () => new Promise((r) => setTimeout(r, 0));

const drive = (role: Drive['role']): Drive => ({
  id: 'd1',
  kind: 'shared',
  name: 'Team space',
  root_id: 'r1',
  used_bytes: 0,
  versions_bytes: 0,
  quota_bytes: null,
  role,
});
const members: DriveMember[] = [
  { type: 'user', id: 'u1', name: 'ann', role: 'manager' },
  { type: 'group', id: 'g1', name: 'Staff', role: 'viewer' },
];

async function setup(role: Drive['role']) {
  const api: DrivesApi = {
    list: async () => [drive(role)],
    create: async () => Promise.reject(new Error('unused')),
    update: async () => Promise.reject(new Error('unused')),
    remove: async () => undefined,
    members: vi.fn(async () => structuredClone(members)),
    setMember: vi.fn(async () => undefined),
    removeUser: vi.fn(async () => undefined),
    removeGroup: vi.fn(async () => undefined),
    groups: async () => [{ id: 'g2', name: 'Ops', created: 0 }],
    sharees: async () => [],
  };
  const model = new DriveSettingsModel(drive(role), api, false, async () => drive(role));
  await model.load();
  const r = render(DriveMembers, { props: { model } });
  return { ...r, api };
}

describe('DriveMembers', () => {
  it('shows a viewer the members and their roles, and no way to change them', async () => {
    const { container } = await setup('viewer');
    const rows = [...container.querySelectorAll('li[data-member]')].map((li) => li.textContent?.replace(/\s+/g, ' ').trim());
    expect(rows).toEqual(['ann Manager', 'Staff Viewer']);
    expect(container.querySelectorAll('select, button, form, input')).toHaveLength(0);
    expect(container.textContent).toContain('Only the managers of the drive change its members.');
  });

  it('lets a manager change a role, remove a member and add a user', async () => {
    const { container, getByLabelText, api } = await setup('manager');
    const role = getByLabelText('Role of Staff') as HTMLSelectElement;
    role.value = 'editor';
    await fireEvent.change(role);
    expect(api.setMember).toHaveBeenLastCalledWith('d1', { group: 'g1', role: 'editor' });
    await settle();
    await fireEvent.click(getByLabelText('Remove ann from the drive'));
    expect(api.removeUser).toHaveBeenCalledWith('d1', 'ann');
    await settle();

    const form = container.querySelector('[data-testid=member-form]') as HTMLFormElement;
    // No name: said so, nothing sent.
    await fireEvent.submit(form);
    expect(container.querySelector('[role=alert]')?.textContent).toBe('Type the name of a user.');
    const user = form.querySelector('[name=member-user]') as HTMLInputElement;
    user.value = 'bob';
    await fireEvent.input(user);
    (form.querySelector('[name=member-role]') as HTMLSelectElement).value = 'viewer';
    await fireEvent.change(form.querySelector('[name=member-role]')!);
    await fireEvent.submit(form);
    await settle();
    expect(api.setMember).toHaveBeenLastCalledWith('d1', { user: 'bob', role: 'viewer' });
    // Groups are offered (happy-dom cannot pick an option inside an
    // <optgroup> for Svelte's select binding: the e2e run adds a group).
    const to = form.querySelector('[name=to]') as HTMLSelectElement;
    expect([...to.options].map((o) => o.value)).toEqual(['user', 'g2']);
  });
});
