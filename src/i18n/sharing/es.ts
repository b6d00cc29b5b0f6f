import type { Translations } from '../keys';

/** Textos de los controles de uso compartido (docs/sharing.md). */
export const sharingEs: Translations = {
  download_limit_reached:
    'Este enlace ya no admite más descargas: el remitente limitó cuántas veces puede descargarse cada archivo.',
  ui_download_limit: 'Límite de descargas',
  ui_download_limit_hint: 'Cuántas veces puede descargarse cada archivo por cada enlace. Vacío: sin límite.',
  ui_download_limit_file_spent: 'No quedan descargas',
  ui_download_limit_of_one: 'Cada archivo puede descargarse {count} vez por este enlace.',
  ui_download_limit_of_other: 'Cada archivo puede descargarse {count} veces por este enlace.',
  ui_download_counts: 'Descargas',
  ui_download_limit_raise: 'Cambiar el límite',
  ui_download_limit_saved: 'Límite de descargas guardado: {limit}.',
  ui_download_limit_none: 'sin límite',
  audit_download_limit_changed: '{who} cambió el límite de descargas.',
  audit_download_refused: 'Se rechazó una descarga por el enlace de {who}: se había alcanzado su límite.',
  download_password_required: 'Este enlace pide una contraseña. Pídasela al remitente.',
  download_password_incorrect: 'La contraseña no es correcta.',
  ui_link_password_title: 'Este enlace pide una contraseña',
  ui_link_password_notice:
    'El remitente protegió este enlace con una contraseña: el servidor la comprueba antes de mostrar los archivos. Esto no es un cifrado de extremo a extremo; una transferencia cifrada pide su propia contraseña al guardar los archivos.',
  ui_link_password_open: 'Abrir',
  ui_link_password: 'Contraseña del enlace',
  ui_link_password_hint:
    'Opcional: los destinatarios deben escribirla antes de ver los archivos. Désela por otro medio que no sea el correo. No es un cifrado de extremo a extremo.',
  ui_link_password_set: 'Los enlaces piden una contraseña.',
  ui_qr: 'Código QR',
  ui_qr_show: 'Mostrar el enlace como código QR',
  ui_qr_of: 'Código QR de {url}',
  audit_transfer_automatic_reminder: 'Se envió a {email} un recordatorio automático antes de la caducidad.',
  // Virus scanning (docs/sharing.md)
  transfer_being_checked:
    'Se están analizando los archivos de esta transferencia en busca de virus. Vuelva a intentarlo dentro de unos minutos.',
  transfer_infected: 'Esta transferencia está bloqueada: el antivirus ha encontrado en ella un archivo infectado.',
  ui_virus_checking: 'En análisis antivirus: se avisará a los destinatarios cuando todos los archivos estén limpios.',
  ui_virus_held:
    'En espera: no se ha podido contactar con el antivirus ({error}). Se vuelve a intentar cada pocos minutos; se avisará a los destinatarios cuando todos los archivos estén limpios.',
  ui_virus_clean: 'Analizada en busca de virus: no se ha encontrado ningún virus.',
  ui_virus_blocked:
    'Bloqueada: el antivirus ha encontrado un archivo infectado. No se ha avisado a los destinatarios y no se puede descargar nada.',
  ui_virus_flagged: 'Atención: el antivirus ha encontrado un archivo infectado en esta transferencia.',
  ui_virus_file: '{file}: {signature}',
  ui_virus_not_scanned:
    'Sin análisis antivirus: no se pudo contactar con el antivirus, o un archivo superaba el tamaño que admite.',
  ui_virus_encrypted:
    'Sin análisis antivirus: los archivos están cifrados de extremo a extremo, así que el servidor no puede leerlos.',
  ui_virus_held_list: 'Transferencias en espera del análisis antivirus',
  audit_virus_scan_clean: 'El análisis antivirus no encontró ningún virus.',
  audit_virus_found: 'El antivirus encontró {detail} en {file}.',
  audit_virus_scan_held: 'El análisis antivirus está en espera: {detail}.',
  audit_virus_scan_failed: 'La transferencia siguió adelante sin análisis antivirus: {detail}.',
  audit_virus_scan_skipped: '{file} no se analizó en busca de virus: {detail}.',
  status_virus_checking: 'En análisis',
  status_virus_held: 'En espera (antivirus)',
  status_virus_blocked: 'Bloqueada (virus)',
};
