import { localTimes } from '../lib/local-times';

/**
 * The server-rendered download page, made stricter than a plain form can be: "Download selected" stays
 * disabled until a file is ticked (submitted empty, the form would ask for every file), and times are
 * rewritten in the reader's own time zone.
 */
export function enhanceDownload(lang: string): void {
  localTimes(lang);
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
  if (form.dataset.limited) guardLimitedDownloads(form, boxes, update);
}

/**
 * A link with a download limit (docs/sharing.md): before each download the page asks the server which files
 * still have a download left (GET /download/files), so a spent file's row says "No downloads left" and a
 * refused download never starts (it would be saved as the server's error, a file named download.json). After a
 * download has started the page asks again every second for a while, so a file spent by it says so as soon as
 * the server has counted it.
 */
function guardLimitedDownloads(form: HTMLFormElement, boxes: HTMLInputElement[], update: () => void): void {
  const base = form.getAttribute('action') ?? '/download';
  const token = form.dataset.token ?? '';
  const status = form.querySelector<HTMLElement>('.download-status');
  const allIds = boxes.map((b) => Number(b.value));
  const spentIds = new Set<number>();
  const markSpent = (ids: Iterable<number>) => {
    for (const id of ids) {
      if (spentIds.has(id)) continue;
      spentIds.add(id);
      const row = form.querySelector<HTMLElement>(`tr[data-file-id="${id}"]`);
      const box = row?.querySelector<HTMLInputElement>('input[type=checkbox]');
      if (box) {
        box.checked = false;
        box.disabled = true;
      }
      const cell = row?.lastElementChild;
      if (cell && !cell.querySelector('.spent')) {
        const said = document.createElement('span');
        said.className = 'spent';
        said.textContent = form.dataset.spentText ?? '';
        cell.replaceChildren(said);
      }
    }
    update();
  };
  const check = async (): Promise<Set<number> | null> => {
    try {
      const res = await fetch(`${base}/files?token=${encodeURIComponent(token)}`, {
        headers: { Accept: 'application/json' },
        credentials: 'same-origin',
      });
      if (res.status === 410) return new Set(allIds); // the whole link is spent (or gone)
      if (!res.ok) return null;
      const body = (await res.json()) as { files?: { id: number; downloads_left: boolean }[] };
      return new Set((body.files ?? []).filter((f) => !f.downloads_left).map((f) => f.id));
    } catch {
      return null; // unreachable: the download itself will say so
    }
  };
  let watching = 0;
  const watchAfterDownload = () => {
    const round = ++watching;
    let left = 30;
    const tick = async () => {
      if (round !== watching || left-- <= 0 || spentIds.size === allIds.length) return;
      const spent = await check();
      if (spent) markSpent(spent);
      setTimeout(tick, 1000);
    };
    setTimeout(tick, 500);
  };
  /** Starts a download of `ids` at `href` once the server says each still has one left; else says why not. */
  const guarded = async (ids: number[], start: () => void) => {
    const spent = await check();
    if (spent) markSpent(spent);
    if (ids.some((id) => spentIds.has(id))) {
      if (status) {
        status.textContent = form.dataset.refusedText ?? '';
        status.hidden = false;
      }
      return;
    }
    if (status) status.hidden = true;
    start();
    watchAfterDownload();
  };
  const save = (href: string) => {
    const a = document.createElement('a');
    a.href = href;
    a.download = '';
    a.hidden = true;
    document.body.append(a);
    a.click();
    a.remove();
  };
  for (const a of form.querySelectorAll<HTMLAnchorElement>('a[download]')) {
    a.addEventListener('click', (e) => {
      e.preventDefault();
      const one = new URL(a.href, location.href).searchParams.get('files_ids');
      void guarded(one ? [Number(one)] : allIds, () => save(a.href));
    });
  }
  form.addEventListener('submit', (e) => {
    e.preventDefault();
    const ids = boxes.filter((b) => b.checked).map((b) => Number(b.value));
    const query = `token=${encodeURIComponent(token)}&files_ids=${ids.join(',')}&archive_format=zip`;
    if (ids.length) void guarded(ids, () => save(`${base}?${query}`));
  });
}
