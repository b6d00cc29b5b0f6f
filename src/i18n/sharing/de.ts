import type { Translations } from '../keys';

/** Texte der Freigabe-Einstellungen (docs/sharing.md). */
export const sharingDe: Translations = {
  download_limit_reached:
    'Über diesen Link sind keine Downloads mehr möglich: Der Absender hat die Zahl der Downloads jeder Datei begrenzt.',
  ui_download_limit: 'Download-Limit',
  ui_download_limit_hint: 'Wie oft jede Datei über jeden Link heruntergeladen werden darf. Leer: unbegrenzt.',
  ui_download_limit_file_spent: 'Keine Downloads mehr',
  ui_download_limit_of_one: 'Jede Datei darf über diesen Link {count}-mal heruntergeladen werden.',
  ui_download_limit_of_other: 'Jede Datei darf über diesen Link {count}-mal heruntergeladen werden.',
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
  // Virus scanning (docs/sharing.md)
  transfer_being_checked:
    'Die Dateien dieser Übertragung werden auf Viren geprüft. Versuchen Sie es in einigen Minuten erneut.',
  transfer_infected: 'Diese Übertragung ist gesperrt: Der Virenscanner hat darin eine infizierte Datei gefunden.',
  ui_virus_checking: 'Wird auf Viren geprüft: Die Empfänger werden benachrichtigt, sobald alle Dateien sauber sind.',
  ui_virus_held:
    'Angehalten: Der Virenscanner ist nicht erreichbar ({error}). Alle paar Minuten wird es erneut versucht; die Empfänger werden benachrichtigt, sobald alle Dateien sauber sind.',
  ui_virus_clean: 'Auf Viren geprüft: kein Virus gefunden.',
  ui_virus_blocked:
    'Gesperrt: Der Virenscanner hat eine infizierte Datei gefunden. Die Empfänger wurden nicht benachrichtigt, und nichts kann heruntergeladen werden.',
  ui_virus_flagged: 'Warnung: Der Virenscanner hat in dieser Übertragung eine infizierte Datei gefunden.',
  ui_virus_file: '{file}: {signature}',
  ui_virus_not_scanned:
    'Nicht auf Viren geprüft: Der Virenscanner war nicht erreichbar, oder eine Datei war größer, als er annimmt.',
  ui_virus_encrypted:
    'Nicht auf Viren geprüft: Die Dateien sind Ende-zu-Ende-verschlüsselt, der Server kann sie nicht lesen.',
  ui_virus_held_list: 'Von der Virenprüfung angehaltene Übertragungen',
  audit_virus_scan_clean: 'Die Virenprüfung hat keinen Virus gefunden.',
  audit_virus_found: 'Der Virenscanner hat {detail} in {file} gefunden.',
  audit_virus_scan_held: 'Die Virenprüfung ist angehalten: {detail}.',
  audit_virus_scan_failed: 'Die Übertragung wurde ohne Virenprüfung bereitgestellt: {detail}.',
  audit_virus_scan_skipped: '{file} wurde nicht auf Viren geprüft: {detail}.',
  status_virus_checking: 'Wird geprüft',
  status_virus_held: 'Angehalten (Virenprüfung)',
  status_virus_blocked: 'Gesperrt (Virus)',
};
