import type { ImportJob, ImportService } from '../modules/imports/service.js';
import { IMPORT_JOB } from '../modules/imports/service.js';
import type { JobHandler } from './worker.js';

export { IMPORT_JOB };

/**
 * Runs an import's job through the imports service. The attempt is the job's last when its
 * attempts are used up: then even a database that was away ends the Import as Failed, so that its
 * report file is not kept for a job that will never run again.
 */
export function importJobHandler(imports: ImportService): JobHandler {
  return (job, signal) => imports.runJob(job.payload as ImportJob, job.attempts >= job.maxAttempts, signal);
}
