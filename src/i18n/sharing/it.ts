import type { Translations } from '../keys';

/** Testi dei controlli di condivisione (docs/sharing.md). */
export const sharingIt: Translations = {
  download_limit_reached:
    'Questo link non ha più download disponibili: il mittente ha limitato quante volte si può scaricare ogni file.',
  ui_download_limit: 'Limite di download',
  ui_download_limit_hint: 'Quante volte si può scaricare ogni file tramite ciascun link. Vuoto: nessun limite.',
  ui_download_limit_file_spent: 'Download esauriti',
  ui_download_limit_of_one: 'Ogni file può essere scaricato {count} volta tramite questo link.',
  ui_download_limit_of_other: 'Ogni file può essere scaricato {count} volte tramite questo link.',
  ui_download_counts: 'Download effettuati',
  ui_download_limit_raise: 'Cambia il limite',
  ui_download_limit_saved: 'Limite di download salvato: {limit}.',
  ui_download_limit_none: 'nessun limite',
  audit_download_limit_changed: '{who} ha cambiato il limite di download.',
  audit_download_refused: 'Un download tramite il link di {who} è stato rifiutato: il limite era stato raggiunto.',
  download_password_required: 'Questo link richiede una password. Chiedila al mittente.',
  download_password_incorrect: 'La password non è corretta.',
  ui_link_password_title: 'Questo link richiede una password',
  ui_link_password_notice:
    'Il mittente ha protetto questo link con una password: il server la verifica prima di mostrare i file. Non è una cifratura end-to-end; un trasferimento cifrato chiede la propria password quando si salvano i file.',
  ui_link_password_open: 'Apri',
  ui_link_password: 'Password del link',
  ui_link_password_hint:
    "Facoltativa: i destinatari devono digitarla prima di vedere i file. Comunicala per un canale diverso dall'email. Non è una cifratura end-to-end.",
  ui_link_password_set: 'I link richiedono una password.',
  ui_qr: 'Codice QR',
  ui_qr_show: 'Mostra il link come codice QR',
  ui_qr_of: 'Codice QR di {url}',
  audit_transfer_automatic_reminder: '{email} ha ricevuto un promemoria automatico prima della scadenza.',
  // Virus scanning (docs/sharing.md)
  transfer_being_checked:
    'È in corso il controllo antivirus dei file di questo trasferimento. Riprova tra qualche minuto.',
  transfer_infected: "Questo trasferimento è bloccato: l'antivirus vi ha trovato un file infetto.",
  ui_virus_checking:
    'Controllo antivirus in corso: i destinatari vengono avvisati quando tutti i file risultano puliti.',
  ui_virus_held:
    "Sospeso: non è stato possibile contattare l'antivirus ({error}). Si riprova ogni pochi minuti; i destinatari vengono avvisati quando tutti i file risultano puliti.",
  ui_virus_clean: "Controllato con l'antivirus: nessun virus trovato.",
  ui_virus_blocked:
    "Bloccato: l'antivirus ha trovato un file infetto. I destinatari non sono stati avvisati e non si può scaricare nulla.",
  ui_virus_flagged: "Attenzione: l'antivirus ha trovato un file infetto in questo trasferimento.",
  ui_virus_file: '{file}: {signature}',
  ui_virus_not_scanned:
    "Non controllato dall'antivirus: l'antivirus non era raggiungibile, oppure un file superava la dimensione che accetta.",
  ui_virus_encrypted:
    "Non controllato dall'antivirus: i file sono cifrati end-to-end, quindi il server non può leggerli.",
  ui_virus_held_list: 'Trasferimenti sospesi dal controllo antivirus',
  audit_virus_scan_clean: 'Il controllo antivirus non ha trovato virus.',
  audit_virus_found: "L'antivirus ha trovato {detail} in {file}.",
  audit_virus_scan_held: 'Il controllo antivirus è sospeso: {detail}.',
  audit_virus_scan_failed: 'Il trasferimento è proseguito senza controllo antivirus: {detail}.',
  audit_virus_scan_skipped: "{file} non è stato controllato dall'antivirus: {detail}.",
  status_virus_checking: 'In controllo',
  status_virus_held: 'Sospeso (antivirus)',
  status_virus_blocked: 'Bloccato (virus)',
};
