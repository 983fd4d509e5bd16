import { discoveryView } from '../discovery/view';
import { systemView } from '../system-scans/view';
import { webView } from '../web-scans/view';

/** Every scan kind the app shows, by the name its routes give the scans pages. */
export const SCAN_VIEWS = {
  discovery: discoveryView,
  system: systemView,
  web: webView,
};

export type ScanViewName = keyof typeof SCAN_VIEWS;
