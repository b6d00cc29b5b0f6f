import { useRef, useState } from 'preact/hooks';
import { useApp } from '../lib/context';
import { formatBytes } from '../lib/format';
import { filesFromDrop, PickedFile } from '../upload/picked';

interface Props {
  files: PickedFile[];
  onChange(files: PickedFile[]): void;
  /** Picker only (no list), e.g. to choose the files of an unfinished upload again. */
  compact?: boolean;
  idPrefix?: string;
}

function sameFile(a: PickedFile, b: PickedFile): boolean {
  return a.name === b.name && a.size === b.size && a.lastModified === b.lastModified;
}

/** Drop zone plus "choose files" and "choose a folder" buttons (keyboard users never need to drag). */
export function FilePicker({ files, onChange, compact, idPrefix = 'pick' }: Props) {
  const { t, lang } = useApp();
  const [over, setOver] = useState(false);
  const filesInput = useRef<HTMLInputElement>(null);
  const folderInput = useRef<HTMLInputElement>(null);

  const add = (more: PickedFile[]) => onChange([...files, ...more.filter((m) => !files.some((f) => sameFile(f, m)))]);
  const fromInput = (input: HTMLInputElement | null) => {
    if (!input?.files) return;
    add(Array.from(input.files).map((f) => new PickedFile(f)));
    input.value = '';
  };
  const total = files.reduce((n, f) => n + f.size, 0);

  return (
    // biome-ignore lint/a11y/noStaticElementInteractions: dropping is a shortcut; the buttons inside pick the same files.
    <div
      class={`dropzone${over ? ' over' : ''}`}
      onDragOver={(e) => {
        e.preventDefault();
        setOver(true);
      }}
      onDragLeave={() => setOver(false)}
      onDrop={async (e) => {
        e.preventDefault();
        setOver(false);
        if (e.dataTransfer) add(await filesFromDrop(e.dataTransfer));
      }}
    >
      <p class="drop-hint">{t('ui_drop_here')}</p>
      <div class="picker-buttons">
        <button type="button" onClick={() => filesInput.current?.click()}>
          {t('ui_choose_files')}
        </button>
        {!compact && (
          <button type="button" onClick={() => folderInput.current?.click()}>
            {t('ui_choose_folder')}
          </button>
        )}
      </div>
      <input
        id={`${idPrefix}-files`}
        ref={filesInput}
        class="visually-hidden"
        type="file"
        multiple
        tabIndex={-1}
        aria-label={t('ui_choose_files')}
        onChange={(e) => fromInput(e.currentTarget)}
      />
      {!compact && (
        <input
          id={`${idPrefix}-folder`}
          ref={folderInput}
          class="visually-hidden"
          type="file"
          multiple
          tabIndex={-1}
          aria-label={t('ui_choose_folder')}
          // A DOM property, not an attribute, for Preact: '' would set it to false and the picker would take files.
          {...{ webkitdirectory: true }}
          onChange={(e) => fromInput(e.currentTarget)}
        />
      )}
      {!compact && files.length > 0 && (
        <>
          <ul class="file-list" aria-label={t('files')}>
            {files.map((f, i) => (
              <li key={`${f.name}:${f.size}:${f.lastModified}`}>
                <span class="name">{f.name}</span>
                <span class="size">{formatBytes(f.size, lang)}</span>
                <button
                  type="button"
                  class="icon"
                  aria-label={t('ui_remove_named', { name: f.name })}
                  onClick={() => onChange(files.filter((_, j) => j !== i))}
                >
                  ×
                </button>
              </li>
            ))}
          </ul>
          <p class="total">{t('ui_files_total', { count: files.length, size: formatBytes(total, lang) })}</p>
        </>
      )}
    </div>
  );
}
