/** Teksten van de deelinstellingen (docs/sharing.md). */
export const sharingNl: Record<string, string> = {
  download_limit_reached: 'Via deze link kan niets meer worden gedownload: de afzender heeft het aantal downloads van elk bestand beperkt.',
  ui_download_limit: 'Downloadlimiet',
  ui_download_limit_hint: 'Hoe vaak elk bestand via elke link mag worden gedownload. Leeg: geen limiet.',
  ui_download_limit_file_spent: 'Geen downloads meer',
  ui_download_limit_of: 'Elk bestand mag {limit} keer via deze link worden gedownload.',
  ui_download_counts: 'Downloads',
  ui_download_limit_raise: 'Limiet wijzigen',
  ui_download_limit_saved: 'De downloadlimiet is nu {limit}.',
  ui_download_limit_none: 'geen limiet',
  audit_download_limit_changed: '{who} heeft de downloadlimiet gewijzigd.',
  audit_download_refused: 'Een download via de link van {who} is geweigerd: de limiet was bereikt.',
};
