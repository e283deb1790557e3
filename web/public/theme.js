// Runs before the app and before first paint (a classic, render-blocking
// script: the CSP forbids inline ones). Sets <html data-theme> from the saved
// choice so a dark-mode user never sees a white flash. "auto" leaves the
// decision to the prefers-color-scheme media query in the stylesheet.
(function () {
  var t = 'auto';
  try {
    t = localStorage.getItem('nubo.theme') || 'auto';
  } catch (e) {}
  document.documentElement.setAttribute('data-theme', t === 'light' || t === 'dark' ? t : 'auto');
  try {
    var l = localStorage.getItem('nubo.locale');
    if (l) document.documentElement.setAttribute('lang', l);
  } catch (e) {}
})();
