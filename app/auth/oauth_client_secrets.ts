/*
| Machine client secrets (portal-api.md › Machine clients): the high-entropy secret
| rule of app/auth/high_entropy_secrets.ts, under the names the machine-client code
| uses. The stored form (`hmac-sha256$` + HMAC-SHA256(APP_KEY, secret)) is unchanged.
*/
export {
  generateSecret as generateClientSecret,
  hashSecret as hashClientSecret,
  secretMatches as clientSecretMatches,
} from '#auth/high_entropy_secrets'
