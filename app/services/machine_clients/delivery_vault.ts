/*
| A credential delivery holds a new client secret, encrypted, for five minutes until
| its issuing administrator consumes it once. The encryption purpose binds a
| ciphertext to its delivery row.
*/
import encryption from '@adonisjs/core/services/encryption'
import ApiError from '#exceptions/api_error'

export const DELIVERY_LIFETIME_MINUTES = 5

export const TARGET_DELIVERY = 'credential_delivery'

const deliveryPurpose = (id: string) => `credential-delivery:${id}`

export function sealSecret(secret: string, deliveryId: string): string {
  return encryption.encrypt(secret, undefined, deliveryPurpose(deliveryId))
}

export function openSecret(encryptedSecret: string, deliveryId: string): string {
  const secret = encryption.decrypt<string>(encryptedSecret, deliveryPurpose(deliveryId))
  if (typeof secret !== 'string') throw new Error('Credential delivery cannot be decrypted.')
  return secret
}

export const deliveryGone = () =>
  new ApiError('GONE', 'The credential delivery is no longer available.')
