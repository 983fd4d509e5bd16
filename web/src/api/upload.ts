import { ApiError } from './client';
import { csrfToken, sessionExpired } from './session';
import type { Problem } from './types';

export interface UploadRequest {
  /** Under /api/latest, e.g. "/imports". */
  path: string;
  file: File;
  /** Left-out values are not sent. */
  query?: Record<string, string | undefined>;
  signal?: AbortSignal;
  /** The share sent, 0..1. */
  onProgress: (fraction: number) => void;
}

/**
 * Sends a file as the raw request body. XMLHttpRequest rather than fetch: only it reports upload
 * progress. Resolves with the JSON answer; a refusal rejects with an ApiError as the client's
 * does (its problem document kept whole), an abort with an AbortError.
 */
export function uploadFile<T>({ path, file, query = {}, signal, onProgress }: UploadRequest): Promise<T> {
  const params = new URLSearchParams();
  for (const [key, value] of Object.entries(query)) if (value) params.set(key, value);
  const search = params.toString();

  return new Promise((resolve, reject) => {
    const xhr = new XMLHttpRequest();
    xhr.open('POST', `/api/latest${path}${search ? `?${search}` : ''}`);
    xhr.withCredentials = true;
    xhr.setRequestHeader('Content-Type', 'application/octet-stream');
    xhr.setRequestHeader('Accept', 'application/json');
    const token = csrfToken();
    if (token) xhr.setRequestHeader('X-CSRF-Token', token);

    xhr.upload.onprogress = (event) => {
      if (event.lengthComputable && event.total > 0) onProgress(event.loaded / event.total);
    };
    // Progress events are throttled (about one per 50 ms): the last may be skipped, so the end of
    // the upload says 100 % itself while the server works on the file.
    xhr.upload.onload = () => onProgress(1);
    xhr.onload = () => {
      if (xhr.status >= 200 && xhr.status < 300) {
        try {
          resolve(JSON.parse(xhr.responseText) as T);
        } catch {
          reject(
            new ApiError({ title: 'Bad answer', status: xhr.status, detail: 'The answer was not JSON.' }),
          );
        }
        return;
      }
      if (xhr.status === 401) sessionExpired();
      reject(new ApiError(readProblem(xhr)));
    };
    // A server that refuses a large body early (413) may close the connection mid-upload.
    xhr.onerror = () =>
      reject(
        new ApiError({
          title: 'Network error',
          status: 0,
          detail: 'The upload did not reach the Rampart server, or it closed the connection. Try again.',
        }),
      );
    xhr.onabort = () => reject(new DOMException('The upload was cancelled.', 'AbortError'));

    if (signal?.aborted) {
      reject(new DOMException('The upload was cancelled.', 'AbortError'));
      return;
    }
    signal?.addEventListener('abort', () => xhr.abort(), { once: true });
    onProgress(0);
    xhr.send(file);
  });
}

function readProblem(xhr: XMLHttpRequest): Problem {
  const fallback: Problem = {
    title: xhr.statusText || 'Request failed',
    status: xhr.status,
    detail: `The server answered ${xhr.status}${xhr.statusText ? ` ${xhr.statusText}` : ''}.`,
  };
  if (!(xhr.getResponseHeader('Content-Type') ?? '').includes('json')) return fallback;
  try {
    return { ...fallback, ...(JSON.parse(xhr.responseText) as Partial<Problem>), status: xhr.status };
  } catch {
    return fallback;
  }
}
