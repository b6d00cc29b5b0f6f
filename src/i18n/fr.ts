import type { Translations } from './keys';

export const fr: Translations = {
  lang_name: 'Français',
  upload_page: 'Envoyer des fichiers',
  my_transfers: 'Mes dépôts',
  guests: 'Invités',
  admin: 'Administration',
  login: 'Se connecter',
  logout: 'Se déconnecter',
  user_id: "Nom d'utilisateur",
  password: 'Mot de passe',
  download: 'Télécharger',
  download_all: 'Tout télécharger (zip)',
  encrypted_download_notice:
    'Ces fichiers sont chiffrés de bout en bout : seul le mot de passe que l’expéditeur vous transmet à part permet de les ouvrir. Saisissez-le ci-dessous ; chaque fichier est alors déchiffré dans ce navigateur pendant son enregistrement.',
  e2ee_unlock_legend: 'Déchiffrer dans ce navigateur',
  e2ee_unlock: 'Déverrouiller',
  e2ee_checking: 'Vérification du mot de passe…',
  e2ee_wrong_password: 'Mot de passe incorrect. Vérifiez le mot de passe auprès de l’expéditeur et réessayez.',
  e2ee_unlocked:
    'Mot de passe correct. Chaque fichier est déchiffré dans ce navigateur pendant son écriture sur le disque.',
  e2ee_save: 'Déchiffrer et enregistrer',
  e2ee_saving: 'Déchiffrement et enregistrement…',
  e2ee_saved: 'Enregistré.',
  e2ee_failed:
    'Échec du déchiffrement : le fichier a été modifié ou endommagé en route. Ce qui a été écrit est incomplet ; supprimez-le.',
  e2ee_unsupported:
    'Ce navigateur ne peut pas déchiffrer ces fichiers. Ouvrez cette page dans un Chrome, Edge, Firefox ou Safari récent, ou utilisez ferry get avec le mot de passe.',
  e2ee_save_all: 'Tout déchiffrer et enregistrer',
  e2ee_locked: 'Chiffré : saisissez le mot de passe ci-dessus pour l’enregistrer.',
  download_selected: 'Télécharger la sélection',
  file: 'Fichier',
  files: 'Fichiers',
  size: 'Taille',
  recipients: 'Destinataires',
  subject: 'Objet',
  message: 'Message',
  from: 'De',
  expires: 'Expire le',
  created: 'Créé le',
  status: 'État',
  transfer_not_found: "Ce dépôt n'existe pas.",
  transfer_expired: 'Ce dépôt a expiré.',
  transfer_closed: 'Ce dépôt a été fermé par son expéditeur.',
  recipient_withdrawn:
    'L’expéditeur a retiré ce lien : il ne donne plus accès à ses fichiers. Demandez-les-lui si vous en avez encore besoin.',
  rest_authentication_required: 'Vous devez vous connecter.',
  rest_ownership_required: "Vous n'êtes pas propriétaire de cette ressource.",
  rest_admin_required: 'Seul un administrateur peut faire cela.',
  rest_access_forbidden: 'Accès interdit.',
  rest_missing_parameter: 'Un paramètre obligatoire manque.',
  rest_bad_parameter: "Un paramètre n'a pas la bonne valeur.",
  rest_endpoint_not_found: 'Point d’accès inconnu.',
  rest_method_not_allowed: 'Méthode non autorisée sur ce point d’accès.',
  bad_request_body: 'Le corps de la requête est illisible.',
  internal_error: 'Une erreur interne est survenue.',
  // Admin tools: users, quotas, storage and usage
  transfer_user_quota_exceeded:
    'Ce transfert dépasserait votre quota. Clôturez ou supprimez des transferts précédents, ou demandez plus d’espace à un administrateur.',
  transfer_host_quota_exceeded:
    'Le service n’a pas la place pour ce transfert pour l’instant (son quota total est atteint). Essayez un transfert plus petit ou plus tard.',
  user_exists: 'Un utilisateur de cet identifiant existe déjà.',
  user_cannot_change_self:
    'Vous ne pouvez ni supprimer votre propre compte ni retirer vos propres droits d’administrateur : un autre administrateur doit le faire.',
  user_password_incorrect: 'Le mot de passe actuel est incorrect.',
  // The error catalogue (src/domain/errors.ts): a text for every id that has none among the pages' texts
  // (src/i18n/ui/), so a page never shows a bare id.
  rest_sanity_check_failed: 'Les tailles ou positions indiquées par la requête ne concordent pas.',
  bad_email: "Une adresse e-mail n'est pas valide.",
  bad_expire: "La date d'expiration n'est pas permise : elle doit être future et dans la durée maximale.",
  bad_option_name: 'Une option est inconnue ou non permise ici.',
  bad_lang_code: "Cette langue n'est pas disponible.",
  transfer_no_files: 'Un dépôt doit contenir au moins un fichier.',
  transfer_no_recipients: "Ajoutez au moins un destinataire, ou choisissez d'obtenir un lien.",
  transfer_too_many_files: 'Ce dépôt contient plus de fichiers que permis.',
  transfer_too_many_recipients: 'Ce dépôt a plus de destinataires que permis.',
  transfer_maximum_size_exceeded: 'Ces fichiers dépassent la taille permise pour un dépôt.',
  file_chunk_out_of_bounds: 'Une partie du fichier se trouve hors de sa taille.',
  transfer_must_be_encrypted:
    'Ce service exige des dépôts chiffrés : activez le chiffrement et choisissez un mot de passe.',
  encryption_not_enabled: "Le chiffrement n'est pas disponible sur ce service.",
  encrypted_files_not_archivable:
    'Les fichiers chiffrés ne peuvent pas être téléchargés en une archive : téléchargez-les un par un.',
  auth_remote_signature_check_failed: "La signature de la requête n'est pas correcte.",
  auth_remote_too_late: 'La requête signée est trop ancienne ou son horloge est décalée : envoyez-la à nouveau.',
  auth_remote_unknown_application: "Cette application n'est pas connue du service.",
  auth_remote_user_rejected: 'Cet utilisateur ne peut pas agir par requêtes signées.',
  rest_security_token_did_not_match:
    "La page n'est plus à jour ou la requête vient d'un autre site : rechargez la page et réessayez.",
  rest_roundtrip_token_invalid: "Le jeton d'aller-retour du dépôt n'est pas correct.",
  recipient_not_found: "Ce destinataire n'existe pas.",
  guest_not_found: "Cet invité n'existe pas.",
  user_not_found: "Cet utilisateur n'existe pas.",
  rest_jsonp_get_only: "Un callback n'est permis que pour les requêtes de lecture.",
  cannot_add_data_to_complete_transfer: 'Ce dépôt est terminé : aucune donnée ne peut y être ajoutée.',
  cannot_alter_closed_transfer: 'Ce dépôt est clos et ne peut plus être modifié.',
  file_incomplete: "Ce fichier n'a pas encore été reçu en entier.",
  transfer_files_incomplete: "Certains fichiers de ce dépôt n'ont pas encore été reçus en entier.",
  transfer_expiry_extension_count_exceeded: "L'expiration de ce dépôt ne peut plus être prolongée.",
  transfer_not_available: "Ce dépôt n'est pas encore disponible : son envoi n'est pas terminé.",
  guest_closed: "Cette invitation d'invité a été close.",
  storage_chunk_too_large: 'Une partie du fichier dépasse ce que le service accepte en une fois.',
  request_body_too_large: 'La requête est trop volumineuse.',
  range_not_satisfiable: 'La partie du fichier demandée se trouve hors du fichier.',
  rate_limit_exceeded: 'Trop de tentatives : attendez un moment et réessayez.',
  login_account_elsewhere:
    "Ce compte appartient à un autre mode de connexion : s'il s'agit de la même personne, demandez à un administrateur de les relier.",
  login_provider_unavailable:
    'Le service de connexion est injoignable pour le moment : réessayez dans quelques minutes.',
  database_unavailable: "Le service ne peut pas joindre sa base de données pour l'instant : réessayez dans un moment.",
  storage_unavailable:
    "Le service ne peut pas joindre son stockage de fichiers pour l'instant : réessayez dans un moment.",
  storage_not_enough_space_left:
    "Le service n'a plus de place pour ces fichiers : réessayez plus tard ou envoyez moins.",
  transfer_link_only:
    'Ce dépôt est partagé par un lien seulement : il n’a aucun destinataire à relancer, et on ne peut pas en ajouter.',
};
