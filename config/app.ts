import env from '#start/env'
import app from '@adonisjs/core/services/app'
import { Secret } from '@adonisjs/core/helpers'
import { defineConfig } from '@adonisjs/core/http'
import { trustProxyFrom } from '#http/trusted_proxies'
import { onBadUrl } from '#http/bad_url'
import { serializeJson } from '#platform/serialize_json'
import { configuredAddress, publicBaseUrl } from '#support/service_url'

/** Encryption and signing key (signed links, encrypted secrets). Set by start/runtime.ts outside production. */
export const appKey = new Secret(env.get('APP_KEY')!)

/**
 * Public base URL of this service: `{base_url}`, `{web_url}`; token_url is
 * APP_URL/oauth/token. Outside production, an unset APP_URL follows HOST and PORT.
 */
export const appUrl = publicBaseUrl(configuredAddress())

export const http = defineConfig({
  generateRequestId: true,
  allowMethodSpoofing: false,
  useAsyncLocalStorage: true,
  trustProxy: trustProxyFrom(env.get('TRUSTED_PROXIES')),
  onBadUrl,
  serializeJSON: serializeJson,
  // A comma is an ordinary character in a query value (`payment_brand=a,b` is one
  // brand); qs's default `comma: true` would turn it into an array, refused as such.
  qs: { parse: { comma: false } },
  cookie: {
    domain: '',
    path: '/',
    maxAge: '2h',
    httpOnly: true,
    secure: app.inProduction,
    sameSite: 'lax',
  },
})
