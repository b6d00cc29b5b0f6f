/** Texts of the sharing controls (docs/sharing.md): download limits, link passwords, QR codes, reminders, scanning. */
export const sharingEn: Record<string, string> = {
  download_limit_reached: 'This link has no downloads left: the sender allowed each file to be downloaded a limited number of times.',
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
};
