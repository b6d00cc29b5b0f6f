import { formatDay } from '../lib/format';

/**
 * The server-rendered download page, made stricter than a plain form can be: "Download selected" stays
 * disabled until a file is ticked (submitted empty, the form would ask for every file), and days are
 * rewritten in the reader's own time zone.
 */
export function enhanceDownload(lang: string): void {
  for (const el of document.querySelectorAll<HTMLElement>('time[data-day]'))
    el.textContent = formatDay(Number(el.dataset.day), lang);
  // The shortened SHA-256 of each file: a button copies the whole value.
  for (const b of document.querySelectorAll<HTMLButtonElement>('button.copy-hash')) {
    b.hidden = false;
    b.addEventListener('click', async () => {
      const said = b.nextElementSibling;
      try {
        await navigator.clipboard.writeText(b.dataset.hash ?? '');
        if (said) said.textContent = b.dataset.copied ?? '';
      } catch {
        if (said) said.textContent = '';
      }
    });
  }
  const form = document.querySelector<HTMLFormElement>('form.download-form');
  const button = form?.querySelector<HTMLButtonElement>('button.download-selected');
  if (!form || !button) return;
  const hint = document.getElementById('select-hint');
  const boxes = [...form.querySelectorAll<HTMLInputElement>('input[type=checkbox][name=files_ids]')];
  const anyTicked = () => boxes.some((b) => b.checked);
  const update = () => {
    button.disabled = !anyTicked();
    if (hint) hint.hidden = anyTicked();
  };
  form.addEventListener('change', update);
  form.addEventListener('submit', (e) => {
    if (!anyTicked()) e.preventDefault();
  });
  update();
}
