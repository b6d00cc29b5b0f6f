import type { Translations } from '../keys';

/** Textos dos controlos de partilha (docs/sharing.md). */
export const sharingPt: Translations = {
  download_limit_reached:
    'Esta ligação já não permite descargas: o remetente limitou quantas vezes cada ficheiro pode ser descarregado.',
  ui_download_limit: 'Limite de descargas',
  ui_download_limit_hint:
    'Quantas vezes cada ficheiro pode ser descarregado através de cada ligação. Vazio: sem limite.',
  ui_download_limit_file_spent: 'Sem descargas restantes',
  ui_download_limit_of_one: 'Cada ficheiro pode ser descarregado {count} vez por esta ligação.',
  ui_download_limit_of_other: 'Cada ficheiro pode ser descarregado {count} vezes por esta ligação.',
  ui_download_counts: 'Descargas',
  ui_download_limit_raise: 'Mudar o limite',
  ui_download_limit_saved: 'Limite de descargas guardado: {limit}.',
  ui_download_limit_none: 'sem limite',
  audit_download_limit_changed: '{who} mudou o limite de descargas.',
  audit_download_refused: 'Foi recusada uma descarga pela ligação de {who}: o limite tinha sido atingido.',
  download_password_required: 'Esta ligação pede uma palavra-passe. Peça-a ao remetente.',
  download_password_incorrect: 'A palavra-passe não está certa.',
  ui_link_password_title: 'Esta ligação pede uma palavra-passe',
  ui_link_password_notice:
    'O remetente protegeu esta ligação com uma palavra-passe: o servidor verifica-a antes de mostrar os ficheiros. Isto não é cifragem ponto a ponto; uma transferência cifrada pede a sua própria palavra-passe quando os ficheiros são guardados.',
  ui_link_password_open: 'Abrir',
  ui_link_password: 'Palavra-passe da ligação',
  ui_link_password_hint:
    'Opcional: os destinatários têm de a introduzir antes de verem os ficheiros. Dê-a por outro meio que não o e-mail. Não é cifragem ponto a ponto.',
  ui_link_password_set: 'As ligações pedem uma palavra-passe.',
  ui_qr: 'Código QR',
  ui_qr_show: 'Mostrar a ligação como código QR',
  ui_qr_of: 'Código QR de {url}',
  audit_transfer_automatic_reminder: 'Foi enviado a {email} um lembrete automático antes da expiração.',
  // Virus scanning (docs/sharing.md)
  transfer_being_checked:
    'Os ficheiros desta transferência estão a ser verificados pelo antivírus. Tente novamente dentro de alguns minutos.',
  transfer_infected: 'Esta transferência está bloqueada: o antivírus encontrou nela um ficheiro infetado.',
  ui_virus_checking:
    'Em verificação antivírus: os destinatários são avisados quando todos os ficheiros estiverem limpos.',
  ui_virus_held:
    'Suspensa: não foi possível contactar o antivírus ({error}). É feita nova tentativa a cada poucos minutos; os destinatários são avisados quando todos os ficheiros estiverem limpos.',
  ui_virus_clean: 'Verificada pelo antivírus: nenhum vírus encontrado.',
  ui_virus_blocked:
    'Bloqueada: o antivírus encontrou um ficheiro infetado. Os destinatários não foram avisados e não é possível descarregar nada.',
  ui_virus_flagged: 'Atenção: o antivírus encontrou um ficheiro infetado nesta transferência.',
  ui_virus_file: '{file}: {signature}',
  ui_virus_not_scanned:
    'Não verificada pelo antivírus: não foi possível contactar o antivírus, ou um ficheiro excedia o tamanho que este aceita.',
  ui_virus_encrypted:
    'Não verificada pelo antivírus: os ficheiros estão cifrados ponto a ponto, pelo que o servidor não os consegue ler.',
  ui_virus_held_list: 'Transferências suspensas pela verificação antivírus',
  audit_virus_scan_clean: 'A verificação antivírus não encontrou nenhum vírus.',
  audit_virus_found: 'O antivírus encontrou {detail} em {file}.',
  audit_virus_scan_held: 'A verificação antivírus está suspensa: {detail}.',
  audit_virus_scan_failed: 'A transferência prosseguiu sem verificação antivírus: {detail}.',
  audit_virus_scan_skipped: '{file} não foi verificado pelo antivírus: {detail}.',
  status_virus_checking: 'Em verificação',
  status_virus_held: 'Suspensa (antivírus)',
  status_virus_blocked: 'Bloqueada (vírus)',
};
