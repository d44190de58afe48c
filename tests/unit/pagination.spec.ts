/*
| app/validators/rules/pagination.ts: `page` from 1 to 2^53 - 1, `per_page`
| 1-100 (default 25); empty, non-digit and zero-padded values are invalid. (A query
| string cannot carry null: `?page` arrives as an empty string.)
*/
import { test } from '@japa/runner'
import ApiError from '#exceptions/api_error'
import { defineInput, validateInput } from '#validators/rules/input'
import { DEFAULT_PER_PAGE, pageOf, paginationFields } from '#validators/rules/pagination'

const query = defineInput({ ...paginationFields }, { strict: true })

async function outcome(raw: Record<string, unknown>) {
  try {
    return { data: await validateInput(raw, query) }
  } catch (error) {
    if (error instanceof ApiError && error.status === 422) return { errors: error.fieldErrors! }
    throw error
  }
}

test.group('Pagination fields', () => {
  test('defaults to page 1 and 25 per page', async ({ assert }) => {
    const { data } = await outcome({})
    assert.deepEqual(pageOf(data!), { page: 1, perPage: 25 })
    assert.equal(DEFAULT_PER_PAGE, 25)
  })

  test('accepts canonical integers within bounds', async ({ assert }) => {
    const cases: Array<[Record<string, string>, { page: number; perPage: number }]> = [
      [{ page: '1' }, { page: 1, perPage: 25 }],
      [
        { page: '7', per_page: '1' },
        { page: 7, perPage: 1 },
      ],
      [
        { page: '999999999', per_page: '100' },
        { page: 999_999_999, perPage: 100 },
      ],
      // Out of range is still a page (an empty one): only past 2^53 - 1 is it invalid.
      [{ page: '1000000000' }, { page: 1_000_000_000, perPage: 25 }],
      [{ page: '9007199254740991' }, { page: Number.MAX_SAFE_INTEGER, perPage: 25 }],
      [{ per_page: '50' }, { page: 1, perPage: 50 }],
      [
        { page: ' 3 ', per_page: ' 10 ' },
        { page: 3, perPage: 10 },
      ],
    ]
    for (const [raw, expected] of cases) {
      const { data, errors } = await outcome(raw)
      assert.isUndefined(errors, JSON.stringify(raw))
      assert.deepEqual(pageOf(data!), expected, JSON.stringify(raw))
    }
  })

  test('rejects out-of-bound, empty, non-digit and zero-padded values', async ({ assert }) => {
    const invalidPage = [
      '0',
      '-1',
      '',
      '   ',
      'abc',
      '1.5',
      '1e3',
      '0x10',
      '01',
      '007',
      '+1',
      '9007199254740992',
      '12345678901234567890',
      '99999999999999999999999',
      ['1', '2'],
      { n: '1' },
      5,
    ]
    for (const page of invalidPage) {
      const { errors } = await outcome({ page })
      assert.deepEqual(Object.keys(errors ?? {}), ['page'], JSON.stringify(page))
    }
    const invalidPerPage = ['0', '101', '1000', '', '-5', '10.0', '050', 'all', 25]
    for (const perPage of invalidPerPage) {
      const { errors } = await outcome({ per_page: perPage })
      assert.deepEqual(Object.keys(errors ?? {}), ['per_page'], JSON.stringify(perPage))
    }
  })

  test('a page out of bounds gets a message naming the bounds', async ({ assert }) => {
    const { errors } = await outcome({ page: '9007199254740993' })
    assert.deepEqual(errors?.page, [
      'The page field must be an integer from 1 to 9007199254740991.',
    ])
  })

  test('unlisted query fields are rejected on a strict list', async ({ assert }) => {
    const { errors } = await outcome({ page: '1', sort: 'name' })
    assert.deepEqual(Object.keys(errors ?? {}), ['sort'])
  })
})
