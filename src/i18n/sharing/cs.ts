/** Texty nastavení sdílení (docs/sharing.md). */
export const sharingCs: Record<string, string> = {
  download_limit_reached:
    'Přes tento odkaz už nelze nic stáhnout: odesílatel omezil, kolikrát lze každý soubor stáhnout.',
  ui_download_limit: 'Limit stahování',
  ui_download_limit_hint: 'Kolikrát lze každý soubor stáhnout přes každý odkaz. Prázdné: bez omezení.',
  ui_download_limit_file_spent: 'Limit stahování vyčerpán',
  ui_download_limit_of: 'Každý soubor lze přes tento odkaz stáhnout {limit}krát.',
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
};
