/** Textes des contrôles de partage (docs/sharing.md). */
export const sharingFr: Record<string, string> = {
  download_limit_reached:
    'Ce lien n’a plus de téléchargements disponibles : l’expéditeur a limité le nombre de téléchargements de chaque fichier.',
  ui_download_limit: 'Limite de téléchargements',
  ui_download_limit_hint: 'Combien de fois chaque fichier peut être téléchargé par chaque lien. Vide : sans limite.',
  ui_download_limit_file_spent: 'Plus de téléchargement possible',
  ui_download_limit_of: 'Chaque fichier peut être téléchargé {limit} fois par ce lien.',
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
};
