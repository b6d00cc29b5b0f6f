/** Testi dei controlli di condivisione (docs/sharing.md). */
export const sharingIt: Record<string, string> = {
  download_limit_reached:
    'Questo link non ha più download disponibili: il mittente ha limitato quante volte si può scaricare ogni file.',
  ui_download_limit: 'Limite di download',
  ui_download_limit_hint: 'Quante volte si può scaricare ogni file tramite ciascun link. Vuoto: nessun limite.',
  ui_download_limit_file_spent: 'Download esauriti',
  ui_download_limit_of: 'Download consentiti per ogni file tramite questo link: {limit}.',
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
};
