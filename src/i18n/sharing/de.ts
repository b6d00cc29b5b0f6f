/** Texte der Freigabe-Einstellungen (docs/sharing.md). */
export const sharingDe: Record<string, string> = {
  download_limit_reached:
    'Über diesen Link sind keine Downloads mehr möglich: Der Absender hat die Zahl der Downloads jeder Datei begrenzt.',
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
  download_password_required: 'Dieser Link verlangt ein Passwort. Fragen Sie den Absender danach.',
  download_password_incorrect: 'Das Passwort ist falsch.',
  ui_link_password_title: 'Dieser Link verlangt ein Passwort',
  ui_link_password_notice:
    'Der Absender hat diesen Link mit einem Passwort geschützt: Der Server prüft es, bevor er die Dateien zeigt. Das ist keine Ende-zu-Ende-Verschlüsselung; eine verschlüsselte Übertragung fragt beim Speichern der Dateien nach ihrem eigenen Passwort.',
  ui_link_password_open: 'Öffnen',
  ui_link_password: 'Link-Passwort',
  ui_link_password_hint:
    'Optional: Empfänger müssen es eingeben, bevor sie die Dateien sehen. Teilen Sie es ihnen auf anderem Weg als per E-Mail mit. Keine Ende-zu-Ende-Verschlüsselung.',
  ui_link_password_set: 'Die Links verlangen ein Passwort.',
  ui_qr: 'QR-Code',
  ui_qr_show: 'Den Link als QR-Code zeigen',
  ui_qr_of: 'QR-Code von {url}',
  audit_transfer_automatic_reminder: '{email} wurde vor dem Ablauf automatisch erinnert.',
};
