import { scanHooks } from './scans';
import type { RequestOf, ResponseOf } from './types';

export type SystemScanPage = ResponseOf<'listSystemScans'>;
export type SystemScan = SystemScanPage['Items'][number];
export type SystemScanBody = RequestOf<'createSystemScan'>;
export type SystemLatestRun = ResponseOf<'getLatestSystemScanRun'>;
export type SystemHost = SystemLatestRun['Hosts'][number];

export const systemScans = scanHooks<SystemScan, SystemScanBody, SystemLatestRun>(
  '/systemscans',
  'system-scans',
);
