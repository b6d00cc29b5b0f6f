/**
 * On a phone the menu is one row scrolled sideways: the current page's link is brought into view, so the row
 * never opens on links the reader did not come from.
 */
export function revealCurrentNav(): void {
  const nav = document.querySelector<HTMLElement>('header.top nav');
  const current = nav?.querySelector<HTMLElement>('a[aria-current="page"]');
  if (!nav || !current || nav.scrollWidth <= nav.clientWidth) return;
  nav.scrollLeft = Math.max(0, current.offsetLeft - nav.offsetLeft - (nav.clientWidth - current.offsetWidth) / 2);
}
