import { useApp } from '../lib/context';

// The option names of docs/architecture.md, Options come from the server's own list; their labels are the translations `option_<name>`.
export { TRANSFER_OPTIONS, GUEST_OPTIONS } from '../../src/domain/options';
import type { GUEST_OPTIONS, TRANSFER_OPTIONS } from '../../src/domain/options';

/** A transfer's or a guest's option: its label is the text `option_<name>`. */
type OptionName = (typeof TRANSFER_OPTIONS)[number] | (typeof GUEST_OPTIONS)[number];

interface Props {
  names: readonly OptionName[];
  value: string[];
  onChange(v: string[]): void;
  idPrefix: string;
  legend?: string;
}

export function OptionBoxes({ names, value, onChange, idPrefix, legend }: Props) {
  const { t } = useApp();
  return (
    <fieldset class="option-boxes">
      {legend && <legend>{legend}</legend>}
      {names.map((name) => (
        <div class="check" key={name}>
          <input
            id={`${idPrefix}-${name}`}
            type="checkbox"
            checked={value.includes(name)}
            onChange={(e) => onChange(e.currentTarget.checked ? [...value, name] : value.filter((v) => v !== name))}
          />
          <label for={`${idPrefix}-${name}`}>{t(`option_${name}`)}</label>
        </div>
      ))}
    </fieldset>
  );
}
