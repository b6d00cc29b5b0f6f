/** Texte der Freigabe-Einstellungen (docs/sharing.md). */
export const sharingDe: Record<string, string> = {
  download_limit_reached: 'Über diesen Link sind keine Downloads mehr möglich: Der Absender hat die Zahl der Downloads jeder Datei begrenzt.',
  ui_download_limit: 'Download-Limit',
  ui_download_limit_hint: 'Wie oft jede Datei über jeden Link heruntergeladen werden darf. Leer: unbegrenzt.',
  ui_download_limit_file_spent: 'Keine Downloads mehr',
  ui_download_limit_of: 'Jede Datei darf über diesen Link {limit}-mal heruntergeladen werden.',
  ui_download_counts: 'Downloads',
  ui_download_limit_raise: 'Limit ändern',
  ui_download_limit_saved: 'Das Download-Limit ist jetzt {limit}.',
  ui_download_limit_none: 'unbegrenzt',
  audit_download_limit_changed: '{who} hat das Download-Limit geändert.',
  audit_download_refused: 'Ein Download über den Link von {who} wurde abgelehnt: Das Limit war erreicht.',
};
