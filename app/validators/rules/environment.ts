/* The `environment` field of collections and reporting (portal-api.md › Collections). */
import vine from '@vinejs/vine'
import { ENVIRONMENTS } from '#models/collections_vocabulary'

export const environmentField = () => vine.enum(ENVIRONMENTS)
