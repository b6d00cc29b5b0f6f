/** Texts of the sharing controls (docs/sharing.md): download limits, link passwords, QR codes, reminders, scanning. */
export const sharingEn: Record<string, string> = {
  download_limit_reached:
    'This link has no downloads left: the sender allowed each file to be downloaded a limited number of times.',
  ui_download_limit: 'Download limit',
  ui_download_limit_hint: 'How many times each file may be downloaded through each link. Empty: no limit.',
  ui_download_limit_file_spent: 'No downloads left',
  ui_download_limit_of: 'Each file may be downloaded {limit} times through this link.',
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
};
