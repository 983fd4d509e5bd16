import { scanHooks } from './scans';
import type { RequestOf, ResponseOf } from './types';

export type WebScanPage = ResponseOf<'listWebScans'>;
export type WebScan = WebScanPage['Items'][number];
export type WebScanBody = RequestOf<'createWebScan'>;
export type WebLatestRun = ResponseOf<'getLatestWebScanRun'>;
export type WebUrl = WebLatestRun['Urls'][number];

export const webScans = scanHooks<WebScan, WebScanBody, WebLatestRun>('/webscans', 'web-scans');
