/*-------------------------------------------------------------------------
 *
 * watermark_test.c
 *		Unit tests of watermark.c: which LSN may be confirmed as delivery
 *		reports come back in any order.
 *
 * test/unit/watermark_test.c
 *
 *-------------------------------------------------------------------------
 */
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>

#include "common/watermark.h"

#define RING_SIZE 4

static void
test_init(void **state)
{
	WatermarkTxn ring[RING_SIZE];
	Watermark	wm;

	watermark_init(&wm, ring, RING_SIZE, 1000);
	assert_true(watermark_idle(&wm));
	assert_false(watermark_full(&wm));
	assert_int_equal(watermark_open_count(&wm), 0);
	assert_int_equal(watermark_pending_records(&wm), 0);
	assert_int_equal(watermark_advance(&wm), 1000);
}

static void
test_in_order(void **state)
{
	WatermarkTxn ring[RING_SIZE];
	Watermark	wm;
	uint64_t	t1;

	watermark_init(&wm, ring, RING_SIZE, 100);
	t1 = watermark_begin(&wm);
	watermark_sent(&wm, t1);
	watermark_sent(&wm, t1);
	assert_int_equal(watermark_pending_records(&wm), 2);
	watermark_acked(&wm, t1);
	watermark_acked(&wm, t1);
	/* all acknowledged but not closed: more records may come */
	assert_int_equal(watermark_advance(&wm), 100);
	assert_false(watermark_idle(&wm));
	watermark_close(&wm, t1, 200);
	assert_int_equal(watermark_advance(&wm), 200);
	assert_true(watermark_idle(&wm));
	assert_int_equal(watermark_open_count(&wm), 0);
}

static void
test_out_of_order_acks(void **state)
{
	WatermarkTxn ring[RING_SIZE];
	Watermark	wm;
	uint64_t	t1;
	uint64_t	t2;
	uint64_t	t3;

	watermark_init(&wm, ring, RING_SIZE, 100);
	t1 = watermark_begin(&wm);
	watermark_sent(&wm, t1);
	watermark_close(&wm, t1, 200);
	t2 = watermark_begin(&wm);
	watermark_sent(&wm, t2);
	watermark_sent(&wm, t2);
	watermark_close(&wm, t2, 300);
	t3 = watermark_begin(&wm);
	watermark_sent(&wm, t3);
	watermark_close(&wm, t3, 400);
	assert_int_equal(watermark_open_count(&wm), 3);

	/* newer transactions finish first: nothing can be confirmed yet */
	watermark_acked(&wm, t3);
	watermark_acked(&wm, t2);
	assert_int_equal(watermark_advance(&wm), 100);
	watermark_acked(&wm, t1);
	/* t1 done, t2 still has a record in flight */
	assert_int_equal(watermark_advance(&wm), 200);
	assert_int_equal(watermark_open_count(&wm), 2);
	assert_int_equal(watermark_pending_records(&wm), 1);
	watermark_acked(&wm, t2);
	/* t2 and the already finished t3 go together */
	assert_int_equal(watermark_advance(&wm), 400);
	assert_true(watermark_idle(&wm));
}

static void
test_empty_transactions(void **state)
{
	WatermarkTxn ring[RING_SIZE];
	Watermark	wm;
	uint64_t	t1;
	uint64_t	t2;
	uint64_t	t3;

	watermark_init(&wm, ring, RING_SIZE, 100);
	/* a transaction with no records completes as soon as it is closed */
	t1 = watermark_begin(&wm);
	watermark_close(&wm, t1, 150);
	assert_int_equal(watermark_advance(&wm), 150);

	/* but it still waits behind an older one */
	t2 = watermark_begin(&wm);
	watermark_sent(&wm, t2);
	watermark_close(&wm, t2, 250);
	t3 = watermark_begin(&wm);
	watermark_close(&wm, t3, 350);
	assert_int_equal(watermark_advance(&wm), 150);
	watermark_acked(&wm, t2);
	assert_int_equal(watermark_advance(&wm), 350);
}

static void
test_full_ring(void **state)
{
	WatermarkTxn ring[RING_SIZE];
	Watermark	wm;
	uint64_t	seq[RING_SIZE];
	uint64_t	next;
	int			i;

	watermark_init(&wm, ring, RING_SIZE, 1);
	for (i = 0; i < RING_SIZE; i++)
	{
		assert_false(watermark_full(&wm));
		seq[i] = watermark_begin(&wm);
		watermark_sent(&wm, seq[i]);
		watermark_close(&wm, seq[i], 10 * (i + 1));
	}
	assert_true(watermark_full(&wm));
	assert_int_equal(watermark_open_count(&wm), RING_SIZE);

	/* finishing a newer one frees nothing */
	watermark_acked(&wm, seq[RING_SIZE - 1]);
	assert_int_equal(watermark_advance(&wm), 1);
	assert_true(watermark_full(&wm));

	/* finishing the oldest frees its slot, which the next one reuses */
	watermark_acked(&wm, seq[0]);
	assert_int_equal(watermark_advance(&wm), 10);
	assert_false(watermark_full(&wm));
	next = watermark_begin(&wm);
	assert_int_equal(next, seq[RING_SIZE - 1] + 1);
	assert_true(watermark_full(&wm));
	watermark_close(&wm, next, 50);

	watermark_acked(&wm, seq[1]);
	watermark_acked(&wm, seq[2]);
	assert_int_equal(watermark_advance(&wm), 50);
	assert_true(watermark_idle(&wm));
}

static void
test_reset(void **state)
{
	WatermarkTxn ring[RING_SIZE];
	Watermark	wm;
	uint64_t	old1;
	uint64_t	old2;
	uint64_t	fresh;

	watermark_init(&wm, ring, RING_SIZE, 100);
	old1 = watermark_begin(&wm);
	watermark_sent(&wm, old1);
	watermark_close(&wm, old1, 200);
	old2 = watermark_begin(&wm);
	watermark_sent(&wm, old2);

	/* the producer was rebuilt: replay starts again from 100 */
	watermark_reset(&wm, 100);
	assert_true(watermark_idle(&wm));
	assert_int_equal(watermark_open_count(&wm), 0);
	assert_int_equal(watermark_pending_records(&wm), 0);
	assert_int_equal(watermark_advance(&wm), 100);

	fresh = watermark_begin(&wm);
	assert_true(fresh > old2);
	watermark_sent(&wm, fresh);

	/* late reports for the forgotten transactions change nothing */
	watermark_acked(&wm, old1);
	watermark_acked(&wm, old2);
	watermark_close(&wm, old2, 999);
	assert_int_equal(watermark_pending_records(&wm), 1);
	watermark_close(&wm, fresh, 200);
	assert_int_equal(watermark_advance(&wm), 100);
	watermark_acked(&wm, fresh);
	assert_int_equal(watermark_advance(&wm), 200);
}

/* Calls for sequence numbers never begun are ignored. */
static void
test_unknown_sequence(void **state)
{
	WatermarkTxn ring[RING_SIZE];
	Watermark	wm;
	uint64_t	t1;

	watermark_init(&wm, ring, RING_SIZE, 5);
	t1 = watermark_begin(&wm);
	watermark_sent(&wm, t1 + 1);
	watermark_acked(&wm, t1 + 7);
	watermark_close(&wm, t1 + 1, 77);
	assert_int_equal(watermark_pending_records(&wm), 0);
	assert_int_equal(watermark_open_count(&wm), 1);
	watermark_close(&wm, t1, 6);
	assert_int_equal(watermark_advance(&wm), 6);
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_init),
		cmocka_unit_test(test_in_order),
		cmocka_unit_test(test_out_of_order_acks),
		cmocka_unit_test(test_empty_transactions),
		cmocka_unit_test(test_full_ring),
		cmocka_unit_test(test_reset),
		cmocka_unit_test(test_unknown_sequence),
	};

	return cmocka_run_group_tests_name("watermark", tests, NULL, NULL);
}
