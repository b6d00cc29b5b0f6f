import type { Translations } from '../keys';

/** Teksty ustawień udostępniania (docs/sharing.md). */
export const sharingPl: Translations = {
  download_limit_reached: 'Przez ten link nie można już nic pobrać: nadawca ograniczył liczbę pobrań każdego pliku.',
  ui_download_limit: 'Limit pobrań',
  ui_download_limit_hint: 'Ile razy można pobrać każdy plik przez każdy link. Puste pole: bez limitu.',
  ui_download_limit_file_spent: 'Limit pobrań wyczerpany',
  ui_download_limit_of_one: 'Każdy plik można pobrać przez ten link {count} raz.',
  ui_download_limit_of_few: 'Każdy plik można pobrać przez ten link {count} razy.',
  ui_download_limit_of_many: 'Każdy plik można pobrać przez ten link {count} razy.',
  ui_download_limit_of_other: 'Każdy plik można pobrać przez ten link {count} razy.',
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
  // Virus scanning (docs/sharing.md)
  transfer_being_checked: 'Pliki tej przesyłki są sprawdzane pod kątem wirusów. Spróbuj ponownie za kilka minut.',
  transfer_infected: 'Ta przesyłka jest zablokowana: skaner antywirusowy wykrył w niej zainfekowany plik.',
  ui_virus_checking:
    'Trwa sprawdzanie pod kątem wirusów: odbiorcy zostaną powiadomieni, gdy wszystkie pliki okażą się czyste.',
  ui_virus_held:
    'Wstrzymana: nie udało się połączyć ze skanerem antywirusowym ({error}). Kolejna próba następuje co kilka minut; odbiorcy zostaną powiadomieni, gdy wszystkie pliki okażą się czyste.',
  ui_virus_clean: 'Sprawdzona pod kątem wirusów: nie wykryto wirusów.',
  ui_virus_blocked:
    'Zablokowana: skaner antywirusowy wykrył zainfekowany plik. Odbiorcy nie zostali powiadomieni i nie można niczego pobrać.',
  ui_virus_flagged: 'Uwaga: skaner antywirusowy wykrył zainfekowany plik w tej przesyłce.',
  ui_virus_file: '{file}: {signature}',
  ui_virus_not_scanned:
    'Niesprawdzona pod kątem wirusów: nie udało się połączyć ze skanerem antywirusowym albo plik przekraczał rozmiar, jaki skaner przyjmuje.',
  ui_virus_encrypted:
    'Niesprawdzona pod kątem wirusów: pliki są zaszyfrowane end-to-end, więc serwer nie może ich odczytać.',
  ui_virus_held_list: 'Przesyłki wstrzymane przez skanowanie antywirusowe',
  audit_virus_scan_clean: 'Skanowanie antywirusowe nie wykryło wirusów.',
  audit_virus_found: 'Skaner antywirusowy wykrył {detail} w pliku {file}.',
  audit_virus_scan_held: 'Skanowanie antywirusowe jest wstrzymane: {detail}.',
  audit_virus_scan_failed: 'Przesyłka została udostępniona bez skanowania antywirusowego: {detail}.',
  audit_virus_scan_skipped: 'Plik {file} nie został sprawdzony pod kątem wirusów: {detail}.',
  status_virus_checking: 'W trakcie sprawdzania',
  status_virus_held: 'Wstrzymana (skanowanie antywirusowe)',
  status_virus_blocked: 'Zablokowana (wirus)',
};
