import { BaseSchema } from '@adonisjs/lucid/schema'

/**
 * Every change to a Portal application's row (deactivated, secret or origins replaced,
 * deleted) notifies `portal_clients_changed` with its client id, when it commits; an
 * emptied table notifies with no payload. Each server process keeps the rows it
 * authenticated with in memory only while it hears these (app/auth/portal_clients.ts).
 * New rows need no notice: a client id not found is never kept. `migration:fresh` drops
 * tables but not functions: the function is replaced, not only created.
 */
export default class extends BaseSchema {
  async up() {
    this.schema.raw(`
      CREATE OR REPLACE FUNCTION notify_portal_client_change() RETURNS trigger LANGUAGE plpgsql AS $$
      BEGIN
        IF TG_OP = 'TRUNCATE' THEN
          PERFORM pg_notify('portal_clients_changed', '');
        ELSE
          PERFORM pg_notify('portal_clients_changed', OLD.client_id);
        END IF;
        RETURN NULL;
      END $$;
      CREATE TRIGGER portal_clients_changed AFTER UPDATE OR DELETE ON portal_clients
        FOR EACH ROW EXECUTE FUNCTION notify_portal_client_change();
      CREATE TRIGGER portal_clients_emptied AFTER TRUNCATE ON portal_clients
        FOR EACH STATEMENT EXECUTE FUNCTION notify_portal_client_change();
    `)
  }

  async down() {
    this.schema.raw(`
      DROP TRIGGER IF EXISTS portal_clients_emptied ON portal_clients;
      DROP TRIGGER IF EXISTS portal_clients_changed ON portal_clients;
      DROP FUNCTION IF EXISTS notify_portal_client_change();
    `)
  }
}
