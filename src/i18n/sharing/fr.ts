/** Textes des contrôles de partage (docs/sharing.md). */
export const sharingFr: Record<string, string> = {
  download_limit_reached: 'Ce lien n’a plus de téléchargements disponibles : l’expéditeur a limité le nombre de téléchargements de chaque fichier.',
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
};
