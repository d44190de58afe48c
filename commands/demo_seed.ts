import { OperatorCommand } from '#console/operator_command'
import { seedDemoData } from '#database/demo/demo_data'

export default class DemoSeed extends OperatorCommand {
  static commandName = 'demo:seed'
  static description = 'Create (or refresh) demo data and print its credentials once'

  protected async execute() {
    return seedDemoData()
  }
}
