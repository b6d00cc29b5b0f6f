/** Teksty ustawień udostępniania (docs/sharing.md). */
export const sharingPl: Record<string, string> = {
  download_limit_reached: 'Przez ten link nie można już nic pobrać: nadawca ograniczył liczbę pobrań każdego pliku.',
  ui_download_limit: 'Limit pobrań',
  ui_download_limit_hint: 'Ile razy można pobrać każdy plik przez każdy link. Puste pole: bez limitu.',
  ui_download_limit_file_spent: 'Limit pobrań wyczerpany',
  ui_download_limit_of: 'Dozwolona liczba pobrań każdego pliku przez ten link: {limit}.',
  ui_download_counts: 'Pobrania',
  ui_download_limit_raise: 'Zmień limit',
  ui_download_limit_saved: 'Zapisano limit pobrań: {limit}.',
  ui_download_limit_none: 'bez limitu',
  audit_download_limit_changed: '{who}: zmiana limitu pobrań.',
  audit_download_refused: '{who}: odmowa pobrania, limit został wyczerpany.',
  download_password_required: 'Ten link wymaga hasła. Poproś o nie nadawcę.',
  download_password_incorrect: 'Hasło jest nieprawidłowe.',
  ui_link_password_title: 'Ten link wymaga hasła',
  ui_link_password_notice:
    'Nadawca zabezpieczył ten link hasłem: serwer sprawdza je, zanim pokaże pliki. To nie jest szyfrowanie end-to-end; zaszyfrowana przesyłka prosi o własne hasło przy zapisywaniu plików.',
  ui_link_password_open: 'Otwórz',
  ui_link_password: 'Hasło do linku',
  ui_link_password_hint:
    'Opcjonalne: odbiorcy muszą je wpisać, zanim zobaczą pliki. Przekaż je innym kanałem niż e-mail. To nie jest szyfrowanie end-to-end.',
  ui_link_password_set: 'Linki wymagają hasła.',
  ui_qr: 'Kod QR',
  ui_qr_show: 'Pokaż link jako kod QR',
  ui_qr_of: 'Kod QR: {url}',
  audit_transfer_automatic_reminder: 'Wysłano automatyczne przypomnienie do {email} przed wygaśnięciem przesyłki.',
};
