/*
| portal-api.md › Merchant: the business profile's field bounds (maximum characters),
| once for the validators (update, operator create) and the Merchant shape.
*/
export const MERCHANT_FIELD_MAX_LENGTH = {
  name: 150,
  contact_person: 100,
  email: 255,
  dial_code: 8,
  phone: 30,
  address: 500,
  website: 2048,
} as const
