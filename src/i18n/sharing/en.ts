import type { Table } from '../table';

/** Texts of the sharing controls (docs/sharing.md): download limits, link passwords, QR codes, reminders, scanning. */
export const sharingEn = {
  download_limit_reached:
    'This link has no downloads left: the sender allowed each file to be downloaded a limited number of times.',
  ui_download_limit: 'Download limit',
  ui_download_limit_hint: 'How many times each file may be downloaded through each link. Empty: no limit.',
  ui_download_limit_file_spent: 'No downloads left',
  ui_download_limit_of_one: 'Each file may be downloaded {count} time through this link.',
  ui_download_limit_of_other: 'Each file may be downloaded {count} times through this link.',
  ui_download_counts: 'Downloads',
  ui_download_limit_raise: 'Change limit',
  ui_download_limit_saved: 'The download limit is now {limit}.',
  ui_download_limit_none: 'no limit',
  audit_download_limit_changed: '{who} changed the download limit.',
  audit_download_refused: 'A download through {who}’s link was refused: its limit was reached.',
  download_password_required: 'This link asks for a password. Ask the sender for it.',
  download_password_incorrect: 'The password is not right.',
  ui_link_password_title: 'This link asks for a password',
  ui_link_password_notice:
    'The sender protected this link with a password: the server checks it before showing the files. This is not end-to-end encryption; an encrypted transfer asks for its own password when the files are saved.',
  ui_link_password_open: 'Open',
  ui_link_password: 'Link password',
  ui_link_password_hint:
    'Optional: recipients must type it before they see the files. Tell it to them another way than the mail. Not end-to-end encryption.',
  ui_link_password_set: 'The links ask for a password.',
  ui_qr: 'QR code',
  ui_qr_show: 'Show the link as a QR code',
  ui_qr_of: 'QR code of {url}',
  audit_transfer_automatic_reminder: '{email} was reminded automatically before the expiry.',
  // Virus scanning (docs/sharing.md)
  transfer_being_checked: 'The files of this transfer are being checked for viruses. Try again in a few minutes.',
  transfer_infected: 'This transfer is blocked: the virus scanner found an infected file in it.',
  ui_virus_checking: 'Being checked for viruses: the recipients are told once every file is clean.',
  ui_virus_held:
    'Held: the virus scanner could not be reached ({error}). It is tried again every few minutes; the recipients are told once every file is clean.',
  ui_virus_clean: 'Checked for viruses: no virus found.',
  ui_virus_blocked:
    'Blocked: the virus scanner found an infected file. The recipients were not told and nothing can be downloaded.',
  ui_virus_flagged: 'Warning: the virus scanner found an infected file in this transfer.',
  ui_virus_file: '{file}: {signature}',
  ui_virus_not_scanned:
    'Not checked for viruses: the virus scanner could not be reached, or a file was larger than it takes.',
  ui_virus_encrypted: 'Not checked for viruses: the files are end-to-end encrypted, so the server cannot read them.',
  ui_virus_held_list: 'Transfers held by the virus scan',
  audit_virus_scan_clean: 'The virus scan found no virus.',
  audit_virus_found: 'The virus scanner found {detail} in {file}.',
  audit_virus_scan_held: 'The virus scan is held: {detail}.',
  audit_virus_scan_failed: 'The transfer went on without a virus scan: {detail}.',
  audit_virus_scan_skipped: '{file} was not checked for viruses: {detail}.',
  status_virus_checking: 'Being checked',
  status_virus_held: 'Held (virus scan)',
  status_virus_blocked: 'Blocked (virus)',
} satisfies Table;
