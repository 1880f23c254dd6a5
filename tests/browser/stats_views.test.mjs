// stats_views.test.mjs: the pure parts of the kernel stats and framework op
// stats pages, and the table filter options they use, under plain node.
// Expected values are worked out by hand next to them.

import assert from 'node:assert/strict';
import { describe, test } from 'node:test';

import { filterRows, isValidRegex, tableModel } from '../../web/table.js';
import { emptyReason, markMissingOccupancy, rowCount, tensorCoreShare,
         topKernels } from '../../web/views/kernel_stats.js';
import { byCategory, groupByType, opCategory, rowObjects, sideTable,
         typeTable } from '../../web/views/framework_op_stats.js';

const KCOLS = ['rank', 'kernel_name', 'occupancy_pct', 'is_op_tensor_core_eligible',
               'is_kernel_using_tensor_core', 'op_name', 'total_duration_us'];
const kt = (rows) => ({
    cols: KCOLS.map((id) => ({ id, type: id === 'kernel_name' || id === 'op_name' ? 'string'
        : id.startsWith('is_') ? 'boolean' : 'number' })),
    rows: rows.map((r) => ({ c: r.map((v) => ({ v })) })),
});
// rank, kernel, occ, eligible, uses TC, op, total us
const KERNELS = kt([
    [1, 'volta_h884gemm', 50, true, true, 'a/MatMul', 30],
    [2, 'eigen_relu', 0, false, false, 'a/Relu', 20],
    [3, 'volta_sgemm', 0, true, false, 'b/MatMul', 10],
    [4, 'conv_fwd', 25, true, false, 'c/Conv2D', 5],
]);

describe('table filter options', () => {
    const m = tableModel(KERNELS);
    test('cols limits the search to the given columns', () => {
        // 'MatMul' is in op_name (column 5) of rows 1 and 3 only.
        assert.equal(filterRows(m.rows, 'matmul', { cols: [5] }).length, 2);
        assert.equal(filterRows(m.rows, 'matmul', { cols: [1] }).length, 0);
    });
    test('regex matches case-insensitively; an invalid one matches nothing', () => {
        assert.deepEqual(filterRows(m.rows, '^volta_[hs]', { regex: true, cols: [1] })
            .map((r) => r[1].v), ['volta_h884gemm', 'volta_sgemm']);
        assert.equal(filterRows(m.rows, 'GEMM$', { regex: true, cols: [1] }).length, 2);
        assert.equal(filterRows(m.rows, '(', { regex: true }).length, 0);
        assert.equal(isValidRegex('('), false);
        assert.equal(isValidRegex('a|b'), true);
    });
});

describe('compact column form', () => {
    test('tableModel reads columns like rows; pv_missing names empty cells', () => {
        const dt = { cols: [{ id: 'n', type: 'number', p: { pv_missing: 'n/a' } },
                            { id: 's', type: 'string' }],
                     columns: [[1, null, 1234.5], ['x', 'y', 'z']] };
        const m = tableModel(dt);
        // 1234.5 is shown with en-US grouping, as in the row form.
        assert.deepEqual(m.rows.map((r) => r.map((c) => c.text)),
                         [['1', 'x'], ['n/a', 'y'], ['1,234.5', 'z']]);
        assert.deepEqual(m.rows.map((r) => r.index), [0, 1, 2]);
        assert.equal(rowCount(dt), 3);
        assert.equal(rowCount({ cols: [], rows: [{ c: [] }] }), 1);
    });
    test('markMissingOccupancy empties 0 % in the column form', () => {
        const dt = markMissingOccupancy({ cols: [{ id: 'occupancy_pct', type: 'number' }],
                                          columns: [[0, 12.5]] });
        assert.deepEqual(dt.columns[0], [null, 12.5]);
        assert.equal(tableModel(dt).rows[0][0].text, 'n/a');
    });
});

describe('kernel stats page', () => {
    const m = tableModel(KERNELS);
    test('topKernels orders by total time and cuts at n', () => {
        assert.deepEqual(topKernels(m.cols, m.rows, 2).map((k) => [k.name, k.us]),
                         [['volta_h884gemm', 30], ['eigen_relu', 20]]);
    });
    test('tensorCoreShare splits eligible time by Tensor Core use', () => {
        // eligible: 30 (TC) + 10 + 5 (no TC); all kernels: 65.
        assert.deepEqual(tensorCoreShare(m.cols, m.rows), { tcUs: 30, noTcUs: 15, totalUs: 65 });
    });
    test('emptyReason tells a non-GPU profile from an empty GPU one', () => {
        assert.match(emptyReason({ pv_gpu_planes: '0' })[0], /no GPU device plane/);
        assert.match(emptyReason({ pv_gpu_planes: '1' })[0], /^No device kernels/);
        assert.match(emptyReason({})[1], /kernel_details/);
    });
    test('markMissingOccupancy shows 0 % as n/a and keeps the value', () => {
        const dt = markMissingOccupancy(kt([[1, 'k', 0, false, false, '', 1],
                                            [2, 'k2', 12.5, false, false, '', 1]]));
        assert.equal(dt.rows[0].c[2].f, 'n/a');
        assert.equal(dt.rows[0].c[2].v, 0);
        assert.equal(dt.rows[1].c[2].f, undefined);
    });
});

describe('framework op stats page', () => {
    const OCOLS = ['rank', 'host_or_device', 'type', 'operation', 'occurrences', 'total_time',
                   'total_self_time'];
    const dt = {
        cols: OCOLS.map((id) => ({ id })),
        rows: [
            ['Device', 'IDLE', 'IDLE', 0, 40, 40],
            ['Device', 'MatMul', 'a/MatMul', 2, 30, 30],
            ['Device', 'MatMul', 'b/MatMul', 1, 10, 10],
            ['Device', 'Transpose', 't', 1, 15, 5],
            ['Device', 'NcclAllReduce', 'ar', 1, 5, 5],
            ['Host', 'Dataset', 'Iterator::Batch', 3, 9, 9],
        ].map((r, i) => ({ c: [i + 1, ...r].map((v) => ({ v })) })),
    };
    test('sideTable keeps one side', () => {
        assert.equal(sideTable(dt, 'Device').rows.length, 5);
        assert.equal(sideTable(dt, 'Host').rows.length, 1);
    });
    test('opCategory groups op types', () => {
        assert.equal(opCategory('IDLE'), 'idle');
        assert.equal(opCategory('Dataset'), 'input');
        assert.equal(opCategory('IteratorGetNext'), 'input');
        assert.equal(opCategory('NcclAllReduce'), 'communication');
        assert.equal(opCategory('_Send'), 'communication');
        assert.equal(opCategory('MemcpyHToD'), 'memory');
        assert.equal(opCategory('Transpose'), 'memory');
        assert.equal(opCategory('Conv2D'), 'compute');
    });
    test('groupByType sums per type, most self time first, with shares', () => {
        const g = groupByType(rowObjects(sideTable(dt, 'Device')));
        // self: IDLE 40, MatMul 30 + 10 = 40 (tie: 'IDLE' < 'MatMul'), Transpose 5,
        // NcclAllReduce 5 (tie: 'NcclAllReduce' < 'Transpose'); all = 90.
        assert.deepEqual(g.map((x) => [x.type, x.ops, x.occurrences, x.selfUs]),
                         [['IDLE', 1, 0, 40], ['MatMul', 2, 3, 40], ['NcclAllReduce', 1, 1, 5],
                          ['Transpose', 1, 1, 5]]);
        assert.equal(g[1].share, 40 / 90);
        assert.equal(g[3].totalUs, 15);
        assert.deepEqual(byCategory(g), { compute: 40, memory: 5, communication: 5, input: 0,
                                          idle: 40 });
        const t = typeTable(g);
        assert.equal(t.rows.length, 4);
        assert.equal(t.rows[1].c[6].v, 40 / 90 * 100);
    });
});
