/*
| The demo data as a Lucid seeder: `node ace db:seed` loads it in development and
| test, and prints its fresh credentials (re-running issues new passwords and a new
| client secret, so they are shown every time). Never in production through db:seed:
| an operator who really wants demo data there asks for it with `node ace demo:seed`.
| What the data is: database/demo/demo_data.ts (also used by `node ace demo:seed`
| and the first `npm run dev`). The helpers live in database/demo/, not here: Lucid
| runs every file below database/seeders as a seeder.
*/
import { BaseSeeder } from '@adonisjs/lucid/seeders'
import { seedDemoData } from '#database/demo/demo_data'

export default class DemoSeeder extends BaseSeeder {
  static environment = ['development', 'test']

  async run() {
    const demo = await seedDemoData()
    process.stdout.write(`Demo data (fresh credentials):\n${JSON.stringify(demo, null, 2)}\n`)
  }
}
