import type { Translations } from '../keys';

/** Teksten van de deelinstellingen (docs/sharing.md). */
export const sharingNl: Translations = {
  download_limit_reached:
    'Via deze link kan niets meer worden gedownload: de afzender heeft het aantal downloads van elk bestand beperkt.',
  ui_download_limit: 'Downloadlimiet',
  ui_download_limit_hint: 'Hoe vaak elk bestand via elke link mag worden gedownload. Leeg: geen limiet.',
  ui_download_limit_file_spent: 'Geen downloads meer',
  ui_download_limit_of_one: 'Elk bestand mag {count} keer via deze link worden gedownload.',
  ui_download_limit_of_other: 'Elk bestand mag {count} keer via deze link worden gedownload.',
  ui_download_counts: 'Downloads',
  ui_download_limit_raise: 'Limiet wijzigen',
  ui_download_limit_saved: 'De downloadlimiet is nu {limit}.',
  ui_download_limit_none: 'geen limiet',
  audit_download_limit_changed: '{who} heeft de downloadlimiet gewijzigd.',
  audit_download_refused: 'Een download via de link van {who} is geweigerd: de limiet was bereikt.',
  download_password_required: 'Deze link vraagt om een wachtwoord. Vraag het aan de afzender.',
  download_password_incorrect: 'Het wachtwoord klopt niet.',
  ui_link_password_title: 'Deze link vraagt om een wachtwoord',
  ui_link_password_notice:
    'De afzender heeft deze link met een wachtwoord beveiligd: de server controleert het voordat de bestanden worden getoond. Dit is geen end-to-end-versleuteling; een versleutelde transfer vraagt bij het opslaan om een eigen wachtwoord.',
  ui_link_password_open: 'Openen',
  ui_link_password: 'Linkwachtwoord',
  ui_link_password_hint:
    'Optioneel: ontvangers moeten het invoeren voordat ze de bestanden zien. Geef het hun op een andere manier dan per e-mail. Geen end-to-end-versleuteling.',
  ui_link_password_set: 'De links vragen om een wachtwoord.',
  ui_qr: 'QR-code',
  ui_qr_show: 'De link als QR-code tonen',
  ui_qr_of: 'QR-code van {url}',
  audit_transfer_automatic_reminder: '{email} kreeg vóór de vervaldatum een automatische herinnering.',
  // Virus scanning (docs/sharing.md)
  transfer_being_checked:
    'De bestanden van deze transfer worden op virussen gecontroleerd. Probeer het over een paar minuten opnieuw.',
  transfer_infected: 'Deze transfer is geblokkeerd: de virusscanner heeft er een geïnfecteerd bestand in gevonden.',
  ui_virus_checking:
    'Wordt op virussen gecontroleerd: de ontvangers worden op de hoogte gebracht zodra alle bestanden schoon zijn.',
  ui_virus_held:
    'Aangehouden: de virusscanner is onbereikbaar ({error}). Het wordt om de paar minuten opnieuw geprobeerd; de ontvangers worden op de hoogte gebracht zodra alle bestanden schoon zijn.',
  ui_virus_clean: 'Op virussen gecontroleerd: geen virus gevonden.',
  ui_virus_blocked:
    'Geblokkeerd: de virusscanner heeft een geïnfecteerd bestand gevonden. De ontvangers zijn niet op de hoogte gebracht en er kan niets worden gedownload.',
  ui_virus_flagged: 'Waarschuwing: de virusscanner heeft een geïnfecteerd bestand in deze transfer gevonden.',
  ui_virus_file: '{file}: {signature}',
  ui_virus_not_scanned:
    'Niet op virussen gecontroleerd: de virusscanner was onbereikbaar, of een bestand was groter dan hij aanneemt.',
  ui_virus_encrypted:
    'Niet op virussen gecontroleerd: de bestanden zijn end-to-end versleuteld, de server kan ze niet lezen.',
  ui_virus_held_list: 'Transfers aangehouden door de virusscan',
  audit_virus_scan_clean: 'De virusscan heeft geen virus gevonden.',
  audit_virus_found: 'De virusscanner heeft {detail} gevonden in {file}.',
  audit_virus_scan_held: 'De virusscan is aangehouden: {detail}.',
  audit_virus_scan_failed: 'De transfer is zonder virusscan beschikbaar gesteld: {detail}.',
  audit_virus_scan_skipped: '{file} is niet op virussen gecontroleerd: {detail}.',
  status_virus_checking: 'Wordt gecontroleerd',
  status_virus_held: 'Aangehouden (virusscan)',
  status_virus_blocked: 'Geblokkeerd (virus)',
};
