import '@adonisjs/core/types/http'

type ParamValue = string | number | bigint | boolean

export type ScannedRoutes = {
  ALL: {
    'auth.login': { paramsTuple?: []; params?: {} }
    'auth.logout': { paramsTuple?: []; params?: {} }
    'auth.reset_link': { paramsTuple?: []; params?: {} }
    'auth.new_password': { paramsTuple?: []; params?: {} }
    'profile.show': { paramsTuple?: []; params?: {} }
    'profile.update': { paramsTuple?: []; params?: {} }
    'profile.email.verify': { paramsTuple?: []; params?: {} }
    'profile.email.resend': { paramsTuple?: []; params?: {} }
    'profile.password': { paramsTuple?: []; params?: {} }
    'profile.email.verify_link': { paramsTuple: [ParamValue]; params: {'verification': ParamValue} }
    'merchant.show': { paramsTuple?: []; params?: {} }
    'merchant.update': { paramsTuple?: []; params?: {} }
    'merchant.logo.show': { paramsTuple?: []; params?: {} }
    'merchant.logo.store': { paramsTuple?: []; params?: {} }
    'merchant.logo.destroy': { paramsTuple?: []; params?: {} }
    'merchant.machine_clients.index': { paramsTuple?: []; params?: {} }
    'merchant.machine_clients.store': { paramsTuple?: []; params?: {} }
    'merchant.machine_clients.rotate': { paramsTuple: [ParamValue]; params: {'client': ParamValue} }
    'merchant.machine_clients.revoke': { paramsTuple: [ParamValue]; params: {'client': ParamValue} }
    'merchant.credential_deliveries.consume': { paramsTuple: [ParamValue]; params: {'delivery': ParamValue} }
    'merchant.integration_keys.show': { paramsTuple?: []; params?: {} }
    'merchant.integration_keys.update': { paramsTuple: [ParamValue]; params: {'keyType': ParamValue} }
    'merchant.integration_keys.destroy': { paramsTuple: [ParamValue]; params: {'keyType': ParamValue} }
    'team.members.index': { paramsTuple?: []; params?: {} }
    'team.members.role': { paramsTuple: [ParamValue]; params: {'member': ParamValue} }
    'team.members.destroy': { paramsTuple: [ParamValue]; params: {'member': ParamValue} }
    'team.invitations.index': { paramsTuple?: []; params?: {} }
    'team.invitations.store': { paramsTuple?: []; params?: {} }
    'team.invitations.resend': { paramsTuple: [ParamValue]; params: {'invitation': ParamValue} }
    'team.invitations.destroy': { paramsTuple: [ParamValue]; params: {'invitation': ParamValue} }
    'team.invitations.accept': { paramsTuple?: []; params?: {} }
    'collections.transactions.index': { paramsTuple?: []; params?: {} }
    'collections.transactions.show': { paramsTuple: [ParamValue]; params: {'transaction': ParamValue} }
    'collections.history.index': { paramsTuple: [ParamValue]; params: {'transaction': ParamValue} }
    'collections.history.show': { paramsTuple: [ParamValue,ParamValue]; params: {'transaction': ParamValue,'history': ParamValue} }
    'collections.metrics': { paramsTuple?: []; params?: {} }
    'collections.charts': { paramsTuple?: []; params?: {} }
    'oauth.token': { paramsTuple?: []; params?: {} }
    'health.live': { paramsTuple?: []; params?: {} }
    'health.ready': { paramsTuple?: []; params?: {} }
    'merchant_api.whoami': { paramsTuple?: []; params?: {} }
    'openapi.document': { paramsTuple?: []; params?: {} }
    'openapi.page': { paramsTuple?: []; params?: {} }
    'openapi.asset': { paramsTuple: [ParamValue]; params: {'asset': ParamValue} }
    'media.logo': { paramsTuple: [ParamValue,ParamValue]; params: {'merchant': ParamValue,'file': ParamValue} }
  }
  POST: {
    'auth.login': { paramsTuple?: []; params?: {} }
    'auth.logout': { paramsTuple?: []; params?: {} }
    'auth.reset_link': { paramsTuple?: []; params?: {} }
    'auth.new_password': { paramsTuple?: []; params?: {} }
    'profile.email.verify': { paramsTuple?: []; params?: {} }
    'profile.email.resend': { paramsTuple?: []; params?: {} }
    'merchant.logo.store': { paramsTuple?: []; params?: {} }
    'merchant.machine_clients.store': { paramsTuple?: []; params?: {} }
    'merchant.machine_clients.rotate': { paramsTuple: [ParamValue]; params: {'client': ParamValue} }
    'merchant.machine_clients.revoke': { paramsTuple: [ParamValue]; params: {'client': ParamValue} }
    'merchant.credential_deliveries.consume': { paramsTuple: [ParamValue]; params: {'delivery': ParamValue} }
    'team.invitations.store': { paramsTuple?: []; params?: {} }
    'team.invitations.resend': { paramsTuple: [ParamValue]; params: {'invitation': ParamValue} }
    'team.invitations.accept': { paramsTuple?: []; params?: {} }
    'oauth.token': { paramsTuple?: []; params?: {} }
  }
  GET: {
    'profile.show': { paramsTuple?: []; params?: {} }
    'profile.email.verify_link': { paramsTuple: [ParamValue]; params: {'verification': ParamValue} }
    'merchant.show': { paramsTuple?: []; params?: {} }
    'merchant.logo.show': { paramsTuple?: []; params?: {} }
    'merchant.machine_clients.index': { paramsTuple?: []; params?: {} }
    'merchant.integration_keys.show': { paramsTuple?: []; params?: {} }
    'team.members.index': { paramsTuple?: []; params?: {} }
    'team.invitations.index': { paramsTuple?: []; params?: {} }
    'collections.transactions.index': { paramsTuple?: []; params?: {} }
    'collections.transactions.show': { paramsTuple: [ParamValue]; params: {'transaction': ParamValue} }
    'collections.history.index': { paramsTuple: [ParamValue]; params: {'transaction': ParamValue} }
    'collections.history.show': { paramsTuple: [ParamValue,ParamValue]; params: {'transaction': ParamValue,'history': ParamValue} }
    'collections.metrics': { paramsTuple?: []; params?: {} }
    'collections.charts': { paramsTuple?: []; params?: {} }
    'health.live': { paramsTuple?: []; params?: {} }
    'health.ready': { paramsTuple?: []; params?: {} }
    'merchant_api.whoami': { paramsTuple?: []; params?: {} }
    'openapi.document': { paramsTuple?: []; params?: {} }
    'openapi.page': { paramsTuple?: []; params?: {} }
    'openapi.asset': { paramsTuple: [ParamValue]; params: {'asset': ParamValue} }
    'media.logo': { paramsTuple: [ParamValue,ParamValue]; params: {'merchant': ParamValue,'file': ParamValue} }
  }
  HEAD: {
    'profile.show': { paramsTuple?: []; params?: {} }
    'merchant.show': { paramsTuple?: []; params?: {} }
    'merchant.logo.show': { paramsTuple?: []; params?: {} }
    'merchant.machine_clients.index': { paramsTuple?: []; params?: {} }
    'merchant.integration_keys.show': { paramsTuple?: []; params?: {} }
    'team.members.index': { paramsTuple?: []; params?: {} }
    'team.invitations.index': { paramsTuple?: []; params?: {} }
    'collections.transactions.index': { paramsTuple?: []; params?: {} }
    'collections.transactions.show': { paramsTuple: [ParamValue]; params: {'transaction': ParamValue} }
    'collections.history.index': { paramsTuple: [ParamValue]; params: {'transaction': ParamValue} }
    'collections.history.show': { paramsTuple: [ParamValue,ParamValue]; params: {'transaction': ParamValue,'history': ParamValue} }
    'collections.metrics': { paramsTuple?: []; params?: {} }
    'collections.charts': { paramsTuple?: []; params?: {} }
    'health.live': { paramsTuple?: []; params?: {} }
    'health.ready': { paramsTuple?: []; params?: {} }
    'merchant_api.whoami': { paramsTuple?: []; params?: {} }
    'openapi.document': { paramsTuple?: []; params?: {} }
    'openapi.page': { paramsTuple?: []; params?: {} }
    'openapi.asset': { paramsTuple: [ParamValue]; params: {'asset': ParamValue} }
    'media.logo': { paramsTuple: [ParamValue,ParamValue]; params: {'merchant': ParamValue,'file': ParamValue} }
  }
  PATCH: {
    'profile.update': { paramsTuple?: []; params?: {} }
    'merchant.update': { paramsTuple?: []; params?: {} }
    'team.members.role': { paramsTuple: [ParamValue]; params: {'member': ParamValue} }
  }
  PUT: {
    'profile.password': { paramsTuple?: []; params?: {} }
    'merchant.integration_keys.update': { paramsTuple: [ParamValue]; params: {'keyType': ParamValue} }
  }
  DELETE: {
    'merchant.logo.destroy': { paramsTuple?: []; params?: {} }
    'merchant.integration_keys.destroy': { paramsTuple: [ParamValue]; params: {'keyType': ParamValue} }
    'team.members.destroy': { paramsTuple: [ParamValue]; params: {'member': ParamValue} }
    'team.invitations.destroy': { paramsTuple: [ParamValue]; params: {'invitation': ParamValue} }
  }
}
declare module '@adonisjs/core/types/http' {
  export interface RoutesList extends ScannedRoutes {}
}