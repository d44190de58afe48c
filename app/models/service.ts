import { ServiceSchema } from '#database/schema'

export default class Service extends ServiceSchema {}
