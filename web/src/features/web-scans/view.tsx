import { splitLines } from '../../api/scans';
import { type WebScan, type WebScanBody, webScans } from '../../api/webscans';
import { latestRunBody } from '../scans/LatestRun';
import { settingsColumns } from '../scans/ScanTable';
import { sealScanView } from '../scans/view';
import { WebRunReport } from './WebRunReport';

/** The hosts of the URLs typed so far, as targets the allowed-targets check reads. */
function urlHosts(urls: string[]): { Range: string }[] {
  const hosts = new Set<string>();
  for (const text of urls) {
    try {
      const url = new URL(text);
      if (url.hostname) hosts.add(url.hostname.replace(/^\[|\]$/g, ''));
    } catch {
      // Not a URL yet (still being typed): the server names it when the scan is saved.
    }
  }
  return [...hosts].map((Range) => ({ Range }));
}

const urlsText = (scan: WebScan) => scan.Urls.join(', ');

/** Web scans: TLS, security headers, cookies and exposed files of the URLs given, on allowed hosts. */
export const webView = sealScanView<WebScan, WebScanBody, 'urls'>({
  kind: 'Web',
  path: '/web-scans',
  hooks: webScans,
  labels: {
    noun: 'web scan',
    intro:
      "Check web sites and applications: TLS, security headers, cookies and exposed files. Each run's findings are kept per URL; what a run no longer sees is marked Fixed.",
    emptyText:
      'A web scan requests the URLs you give it, on allowed hosts only, and judges what they answer.',
  },
  columns: [{ header: 'URLs', code: true, cell: urlsText }, ...settingsColumns<WebScan>()],
  factColumns: 2,
  facts: (scan) => ({ first: [{ label: 'URLs', value: urlsText(scan), code: true }] }),
  form: {
    fields: [
      {
        key: 'urls',
        label: 'URLs',
        description:
          'One per line: absolute http or https URLs on allowed hosts (https://shop.example.com/).',
        path: '/Urls',
        missing: 'Enter at least one URL, one per line.',
        parse: splitLines,
        minRows: 3,
      },
    ],
    initial: (scan) => ({ urls: (scan?.Urls ?? []).join('\n') }),
    body: (text, common) => ({ ...common, Urls: splitLines(text.urls) }),
    checked: (text) => ({ targets: urlHosts(splitLines(text.urls)), exclusions: [] }),
    templatePlaceholder: 'Web scan [W1]',
  },
  Body: latestRunBody(webScans, WebRunReport),
});
