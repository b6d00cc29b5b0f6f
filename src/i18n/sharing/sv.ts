import type { Translations } from '../keys';

/** Texter för delningsinställningarna (docs/sharing.md). */
export const sharingSv: Translations = {
  download_limit_reached:
    'Den här länken har inga nedladdningar kvar: avsändaren har begränsat hur många gånger varje fil får laddas ner.',
  ui_download_limit: 'Nedladdningsgräns',
  ui_download_limit_hint: 'Hur många gånger varje fil får laddas ner via varje länk. Tomt: ingen gräns.',
  ui_download_limit_file_spent: 'Inga nedladdningar kvar',
  ui_download_limit_of_one: 'Varje fil får laddas ner {count} gång via den här länken.',
  ui_download_limit_of_other: 'Varje fil får laddas ner {count} gånger via den här länken.',
  ui_download_counts: 'Nedladdningar',
  ui_download_limit_raise: 'Ändra gränsen',
  ui_download_limit_saved: 'Nedladdningsgränsen är sparad: {limit}.',
  ui_download_limit_none: 'ingen gräns',
  audit_download_limit_changed: '{who} ändrade nedladdningsgränsen.',
  audit_download_refused: 'En nedladdning via länken för {who} nekades: gränsen var nådd.',
  download_password_required: 'Den här länken kräver ett lösenord. Be avsändaren om det.',
  download_password_incorrect: 'Lösenordet stämmer inte.',
  ui_link_password_title: 'Den här länken kräver ett lösenord',
  ui_link_password_notice:
    'Avsändaren har skyddat den här länken med ett lösenord: servern kontrollerar det innan filerna visas. Det är inte kryptering från början till slut; en krypterad överföring frågar efter sitt eget lösenord när filerna sparas.',
  ui_link_password_open: 'Öppna',
  ui_link_password: 'Lösenord för länken',
  ui_link_password_hint:
    'Valfritt: mottagarna måste skriva in det innan de ser filerna. Ge dem det på annat sätt än med e-post. Inte kryptering från början till slut.',
  ui_link_password_set: 'Länkarna kräver ett lösenord.',
  ui_qr: 'QR-kod',
  ui_qr_show: 'Visa länken som QR-kod',
  ui_qr_of: 'QR-kod för {url}',
  audit_transfer_automatic_reminder: '{email} fick en automatisk påminnelse före slutdatumet.',
  // Virus scanning (docs/sharing.md)
  transfer_being_checked: 'Filerna i den här överföringen kontrolleras efter virus. Försök igen om några minuter.',
  transfer_infected: 'Den här överföringen är spärrad: virusskannern hittade en infekterad fil i den.',
  ui_virus_checking: 'Kontrolleras efter virus: mottagarna meddelas när alla filer är rena.',
  ui_virus_held:
    'Väntar: virusskannern gick inte att nå ({error}). Ett nytt försök görs med några minuters mellanrum; mottagarna meddelas när alla filer är rena.',
  ui_virus_clean: 'Kontrollerad efter virus: inget virus hittades.',
  ui_virus_blocked:
    'Spärrad: virusskannern hittade en infekterad fil. Mottagarna har inte meddelats och ingenting kan laddas ned.',
  ui_virus_flagged: 'Varning: virusskannern hittade en infekterad fil i den här överföringen.',
  ui_virus_file: '{file}: {signature}',
  ui_virus_not_scanned:
    'Inte kontrollerad efter virus: virusskannern gick inte att nå, eller så var en fil större än skannern tar emot.',
  ui_virus_encrypted: 'Inte kontrollerad efter virus: filerna är krypterade hela vägen, så servern kan inte läsa dem.',
  ui_virus_held_list: 'Överföringar som väntar på virusskanningen',
  audit_virus_scan_clean: 'Virusskanningen hittade inget virus.',
  audit_virus_found: 'Virusskannern hittade {detail} i {file}.',
  audit_virus_scan_held: 'Virusskanningen väntar: {detail}.',
  audit_virus_scan_failed: 'Överföringen gick vidare utan virusskanning: {detail}.',
  audit_virus_scan_skipped: '{file} kontrollerades inte efter virus: {detail}.',
  status_virus_checking: 'Kontrolleras',
  status_virus_held: 'Väntar (virusskanning)',
  status_virus_blocked: 'Spärrad (virus)',
};
