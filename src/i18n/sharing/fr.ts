import type { Translations } from '../keys';

/** Textes des contrôles de partage (docs/sharing.md). */
export const sharingFr: Translations = {
  download_limit_reached:
    'Ce lien n’a plus de téléchargements disponibles : l’expéditeur a limité le nombre de téléchargements de chaque fichier.',
  ui_download_limit: 'Limite de téléchargements',
  ui_download_limit_hint: 'Combien de fois chaque fichier peut être téléchargé par chaque lien. Vide : sans limite.',
  ui_download_limit_file_spent: 'Plus de téléchargement possible',
  ui_download_limit_of_one: 'Chaque fichier peut être téléchargé {count} fois par ce lien.',
  ui_download_limit_of_other: 'Chaque fichier peut être téléchargé {count} fois par ce lien.',
  ui_download_counts: 'Téléchargements',
  ui_download_limit_raise: 'Modifier la limite',
  ui_download_limit_saved: 'La limite de téléchargements est maintenant {limit}.',
  ui_download_limit_none: 'sans limite',
  audit_download_limit_changed: '{who} a modifié la limite de téléchargements.',
  audit_download_refused: 'Un téléchargement par le lien de {who} a été refusé : sa limite était atteinte.',
  download_password_required: 'Ce lien demande un mot de passe. Demandez-le à l’expéditeur.',
  download_password_incorrect: 'Le mot de passe est incorrect.',
  ui_link_password_title: 'Ce lien demande un mot de passe',
  ui_link_password_notice:
    'L’expéditeur a protégé ce lien par un mot de passe : le serveur le vérifie avant de montrer les fichiers. Ce n’est pas un chiffrement de bout en bout ; un dépôt chiffré demande son propre mot de passe à l’enregistrement des fichiers.',
  ui_link_password_open: 'Ouvrir',
  ui_link_password: 'Mot de passe du lien',
  ui_link_password_hint:
    'Facultatif : les destinataires doivent le saisir avant de voir les fichiers. Communiquez-le-leur autrement que par le courriel. Ce n’est pas un chiffrement de bout en bout.',
  ui_link_password_set: 'Les liens demandent un mot de passe.',
  ui_qr: 'Code QR',
  ui_qr_show: 'Afficher le lien en code QR',
  ui_qr_of: 'Code QR de {url}',
  audit_transfer_automatic_reminder: '{email} a reçu un rappel automatique avant l’expiration.',
  // Virus scanning (docs/sharing.md)
  transfer_being_checked:
    'Les fichiers de ce dépôt sont en cours d’analyse antivirus. Réessayez dans quelques minutes.',
  transfer_infected: 'Ce dépôt est bloqué : l’antivirus y a trouvé un fichier infecté.',
  ui_virus_checking:
    'Analyse antivirus en cours : les destinataires seront prévenus dès que tous les fichiers seront sains.',
  ui_virus_held:
    'En attente : l’antivirus est injoignable ({error}). Une nouvelle tentative a lieu toutes les quelques minutes ; les destinataires seront prévenus dès que tous les fichiers seront sains.',
  ui_virus_clean: 'Analysé par l’antivirus : aucun virus trouvé.',
  ui_virus_blocked:
    'Bloqué : l’antivirus a trouvé un fichier infecté. Les destinataires n’ont pas été prévenus et rien ne peut être téléchargé.',
  ui_virus_flagged: 'Attention : l’antivirus a trouvé un fichier infecté dans ce dépôt.',
  ui_virus_file: '{file} : {signature}',
  ui_virus_not_scanned:
    'Non analysé par l’antivirus : l’antivirus était injoignable, ou un fichier dépassait la taille qu’il accepte.',
  ui_virus_encrypted:
    'Non analysé par l’antivirus : les fichiers sont chiffrés de bout en bout, le serveur ne peut pas les lire.',
  ui_virus_held_list: 'Dépôts en attente de l’analyse antivirus',
  audit_virus_scan_clean: 'L’analyse antivirus n’a trouvé aucun virus.',
  audit_virus_found: 'L’antivirus a trouvé {detail} dans {file}.',
  audit_virus_scan_held: 'L’analyse antivirus est en attente : {detail}.',
  audit_virus_scan_failed: 'Le dépôt a été mis à disposition sans analyse antivirus : {detail}.',
  audit_virus_scan_skipped: '{file} n’a pas été analysé par l’antivirus : {detail}.',
  status_virus_checking: 'En cours d’analyse',
  status_virus_held: 'En attente (antivirus)',
  status_virus_blocked: 'Bloqué (virus)',
};
