import type { Translations } from '../keys';

/** Texty nastavení sdílení (docs/sharing.md). */
export const sharingCs: Translations = {
  download_limit_reached:
    'Přes tento odkaz už nelze nic stáhnout: odesílatel omezil, kolikrát lze každý soubor stáhnout.',
  ui_download_limit: 'Limit stahování',
  ui_download_limit_hint: 'Kolikrát lze každý soubor stáhnout přes každý odkaz. Prázdné: bez omezení.',
  ui_download_limit_file_spent: 'Limit stahování vyčerpán',
  ui_download_limit_of_one: 'Každý soubor lze přes tento odkaz stáhnout {count}krát.',
  ui_download_limit_of_few: 'Každý soubor lze přes tento odkaz stáhnout {count}krát.',
  ui_download_limit_of_other: 'Každý soubor lze přes tento odkaz stáhnout {count}krát.',
  ui_download_counts: 'Stažení',
  ui_download_limit_raise: 'Změnit limit',
  ui_download_limit_saved: 'Limit stahování uložen: {limit}.',
  ui_download_limit_none: 'bez omezení',
  audit_download_limit_changed: '{who}: změna limitu stahování.',
  audit_download_refused: '{who}: stažení odmítnuto, limit byl vyčerpán.',
  download_password_required: 'Tento odkaz vyžaduje heslo. Požádejte o něj odesílatele.',
  download_password_incorrect: 'Heslo není správné.',
  ui_link_password_title: 'Tento odkaz vyžaduje heslo',
  ui_link_password_notice:
    'Odesílatel tento odkaz zabezpečil heslem: server ho ověří, než zobrazí soubory. Nejde o šifrování end-to-end; šifrovaná zásilka si při ukládání souborů řekne o vlastní heslo.',
  ui_link_password_open: 'Otevřít',
  ui_link_password: 'Heslo k odkazu',
  ui_link_password_hint:
    'Volitelné: příjemci ho musí zadat, než uvidí soubory. Předejte jim ho jinou cestou než e-mailem. Nejde o šifrování end-to-end.',
  ui_link_password_set: 'Odkazy vyžadují heslo.',
  ui_qr: 'QR kód',
  ui_qr_show: 'Zobrazit odkaz jako QR kód',
  ui_qr_of: 'QR kód: {url}',
  audit_transfer_automatic_reminder: 'Automatická připomínka před vypršením platnosti odeslána na {email}.',
  // Virus scanning (docs/sharing.md)
  transfer_being_checked: 'Soubory této zásilky se právě kontrolují na viry. Zkuste to znovu za několik minut.',
  transfer_infected: 'Tato zásilka je zablokovaná: antivirová kontrola v ní našla nakažený soubor.',
  ui_virus_checking: 'Probíhá kontrola na viry: příjemci budou upozorněni, jakmile budou všechny soubory čisté.',
  ui_virus_held:
    'Pozastaveno: antivir není dostupný ({error}). Kontrola se opakuje každých několik minut; příjemci budou upozorněni, jakmile budou všechny soubory čisté.',
  ui_virus_clean: 'Zkontrolováno na viry: žádný virus nenalezen.',
  ui_virus_blocked:
    'Zablokováno: antivirová kontrola našla nakažený soubor. Příjemci nebyli upozorněni a nic nelze stáhnout.',
  ui_virus_flagged: 'Upozornění: antivirová kontrola našla v této zásilce nakažený soubor.',
  ui_virus_file: '{file}: {signature}',
  ui_virus_not_scanned: 'Nezkontrolováno na viry: antivir nebyl dostupný, nebo byl soubor větší, než antivir přijímá.',
  ui_virus_encrypted: 'Nezkontrolováno na viry: soubory jsou šifrované end-to-end, takže je server nemůže číst.',
  ui_virus_held_list: 'Zásilky pozastavené antivirovou kontrolou',
  audit_virus_scan_clean: 'Antivirová kontrola nenašla žádný virus.',
  audit_virus_found: 'Antivirová kontrola našla {detail} v souboru {file}.',
  audit_virus_scan_held: 'Antivirová kontrola je pozastavena: {detail}.',
  audit_virus_scan_failed: 'Zásilka pokračovala bez antivirové kontroly: {detail}.',
  audit_virus_scan_skipped: 'Soubor {file} nebyl zkontrolován na viry: {detail}.',
  status_virus_checking: 'Kontroluje se',
  status_virus_held: 'Pozastavená (antivirová kontrola)',
  status_virus_blocked: 'Zablokovaná (virus)',
};
