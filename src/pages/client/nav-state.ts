// The header of a public page (cached for everyone, drawn signed out): when the session's companion cookie says
// this browser is signed in (pages/app/session.ts SIGNED_IN_HINT), show "Account / Log out" and the signed-in
// links instead of "Log in / Sign up". App pages draw the right header on the server and are left alone.

export function initNavState(): void {
  const nav = document.querySelector('nav.main[data-nav="public"]');
  if (!nav || !/(?:^|;\s*)__Host-signed-in=1(?:;|$)/.test(document.cookie)) return;
  nav.querySelectorAll<HTMLElement>("[data-nav-when]").forEach((el) => {
    el.hidden = el.dataset.navWhen !== "in";
  });
}
