import { isoOrNull } from '../../http/dto.js';
import type { ApiKey } from './service.js';

// How API keys look on the wire. The secret is shown once, in the answer that creates the key.

export const toApiKeyDto = (k: ApiKey) => ({
  Id: k.id,
  Name: k.name,
  AccessKey: k.accessKey,
  CreatedAt: k.createdAt.toISOString(),
  LastUsedAt: isoOrNull(k.lastUsedAt),
  ExpiresAt: isoOrNull(k.expiresAt),
  RevokedAt: isoOrNull(k.revokedAt),
  Status: k.status,
});

/** All of a user's keys at once: one page, no cursor. */
export const toApiKeyListDto = (keys: ApiKey[]) => ({
  Items: keys.map(toApiKeyDto),
  NextCursor: null,
  TotalCount: keys.length,
});

export const toCreatedApiKeyDto = (key: ApiKey, secretKey: string) => ({
  ...toApiKeyDto(key),
  SecretKey: secretKey,
});
