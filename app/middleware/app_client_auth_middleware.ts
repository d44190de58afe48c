export default class { handle(_c: any, n: any) { return n() } }
