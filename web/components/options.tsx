import { useApp } from '../lib/context';

/** The option names of design.md §8; their labels are the translations `option_<name>`. */
export const TRANSFER_OPTIONS = [
  'email_me_copies',
  'email_me_on_expire',
  'email_upload_complete',
  'email_download_complete',
  'email_report_on_closing',
  'enable_recipient_email_download_complete',
  'add_me_to_recipients',
  'get_a_link',
];

export const GUEST_OPTIONS = [
  'email_upload_started',
  'email_upload_page_access',
  'valid_only_one_time',
  'does_not_expire',
  'can_only_send_to_me',
  'email_guest_created',
  'email_guest_created_receipt',
  'email_guest_expired',
];

interface Props {
  names: string[];
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
