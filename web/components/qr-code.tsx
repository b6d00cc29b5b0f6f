import { useState } from 'preact/hooks';
import QRCode from 'qrcode';
import { useApp } from '../lib/context';

/**
 * A link as a QR code (docs/sharing.md, QR codes), drawn here as SVG by the `qrcode` package bundled into the
 * page's script: nothing is fetched from anywhere. The SVG is the library's own output (path data of the
 * modules), so no text of the link is put into markup. Shown on demand, so a list of fifty links stays short.
 */
export function QrButton({ text, label }: { text: string; label?: string }) {
  const { t } = useApp();
  const [svg, setSvg] = useState<string | null>(null);
  const toggle = async () => {
    if (svg) return setSvg(null);
    setSvg(
      await QRCode.toString(text, {
        type: 'svg',
        errorCorrectionLevel: 'M',
        margin: 4,
        color: { dark: '#000000', light: '#ffffff' },
      }),
    );
  };
  return (
    <span class="qr">
      <button type="button" aria-expanded={svg !== null} aria-label={label ?? t('ui_qr_show')} onClick={toggle}>
        {t('ui_qr')}
      </button>
      {svg && (
        <figure
          class="qr-code"
          role="img"
          aria-label={t('ui_qr_of', { url: text })}
          dangerouslySetInnerHTML={{ __html: svg }}
        />
      )}
    </span>
  );
}
