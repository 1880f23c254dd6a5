// stats_views.test.mjs: the pure parts of the kernel stats and framework op
// stats pages, and the table filter options they use, under plain node.
// Expected values are worked out by hand next to them.

import assert from 'node:assert/strict';
import { describe, test } from 'node:test';

import { filterRows, isValidRegex, tableModel } from '../../web/table.js';
import { emptyReason, kernelLabels, markMissingOccupancy, matrixUnit, opDifferences,
         relabelUnit, shortKernelName, tensorCoreShare,
         topKernels } from '../../web/views/kernel_stats.js';
import { asPercentages, byCategory, groupByType, isFractionColumn, opCategory,
         sideTable, typeTable } from '../../web/views/framework_op_stats.js';
import { rowCount, rowObjects } from '../../web/views/lib/datatable.js';

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
    test('shortKernelName drops the return type, parameters and template arguments', () => {
        assert.equal(shortKernelName('void cudnn::cnn::wgrad_alg0_engine<float, 512, 6, ' +
                                     'false>(int, int, float const*, kernel_grad_params)'),
                     'cudnn::cnn::wgrad_alg0_engine<…>');
        // nested templates, and templates inside the scope
        assert.equal(shortKernelName('void a::b<c<int>, 2>::run<float>(d<3>, float*)'),
                     'a::b<…>::run<…>');
        assert.equal(shortKernelName('void (anonymous namespace)::softmax_warp_forward' +
                                     '<float, 10>(float*, int)'),
                     '(anonymous namespace)::softmax_warp_forward<…>');
        // names that are not C++ come back as they are
        assert.equal(shortKernelName('volta_cgemm_32x32_tn'), 'volta_cgemm_32x32_tn');
        assert.equal(shortKernelName('Im3d2Col.kd'), 'Im3d2Col.kd');
    });
    test('opDifferences keeps the parts where the ops differ, and the op itself', () => {
        assert.deepEqual(opDifferences(['g/s/conv2d_1/Conv2D/F', 'g/s/conv2d_2/Conv2D/F']),
                         ['conv2d_1/…/F', 'conv2d_2/…/F']);
        assert.deepEqual(opDifferences(['r_4/b/l_17/d/R', 'r_6/b/l_22/d/R', 'r_6/b/l_4/d/R']),
                         ['r_4/…/l_17/…/R', 'r_6/…/l_22/…/R', 'r_6/…/l_4/…/R']);
        // the last part always stays, even when the ops are the same
        assert.deepEqual(opDifferences(['a/b', 'a/b']), ['b', 'b']);
        assert.deepEqual(opDifferences(['x', 'y']), ['x', 'y']);
    });
    test('kernelLabels tell repeated names apart by op, then launch shape, then rank', () => {
        const k = (name, op, grid, rank) => ({ name, op, grid, block: '64,1,1', rank });
        assert.deepEqual(kernelLabels([
            k('volta_cgemm_32x32_tn', 'g/c1/Conv', '1,1,544', 2),
            k('volta_cgemm_32x32_tn', 'g/c2/Conv', '1,1,544', 3),
            k('void f<int>(int)', 'jit/dot', '16,1,1', 4),
            k('void f<float>(float)', 'jit/dot', '32,1,1', 5),
            k('w.kd', 'x', '1,1,1', 6),
            k('w.kd', 'x', '1,1,1', 7),
            k('other', 'o', '1,1,1', 8),
        ]), [
            ['volta_cgemm_32x32_tn', 'c1/Conv'],
            ['volta_cgemm_32x32_tn', 'c2/Conv'],
            ['f<…>', 'grid 16,1,1 · block 64,1,1'],
            ['f<…>', 'grid 32,1,1 · block 64,1,1'],
            ['w.kd', 'rank 6'],
            ['w.kd', 'rank 7'],
            'other',
        ]);
    });
    test('AMD GPUs have Matrix Cores, in the words and in the column labels', () => {
        assert.equal(matrixUnit({ pv_gpu_vendor: 'AMD' }), 'Matrix Core');
        assert.equal(matrixUnit({ pv_gpu_vendor: 'Nvidia' }), 'Tensor Core');
        assert.equal(matrixUnit({}), 'Tensor Core');
        const dt = relabelUnit({ cols: [{ id: 'a', label: 'Op is TensorCore eligible' },
                                        { id: 'b', label: 'Rank' }] }, 'Matrix Core');
        assert.deepEqual(dt.cols.map((c) => c.label), ['Op is Matrix Core eligible', 'Rank']);
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
    test('asPercentages turns the share columns into percent', () => {
        assert.ok(isFractionColumn('device_total_self_time_percent'));
        assert.ok(isFractionColumn('gpu_tensorcore_utilization'));
        assert.ok(!isFractionColumn('total_self_time'));
        const t = asPercentages({
            cols: [{ id: 'x', label: 'X (%)' }, { id: 'gpu_tensorcore_utilization', label: 'TC' },
                   { id: 'total_time', label: 'T' }],
            rows: [{ c: [{ v: 0.9521 }, { v: 0.5 }, { v: 7 }] }, { c: [{ v: null }, null, { v: 1 }] }],
        });
        // only ids count: 'x' is not a share column whatever its label says
        assert.deepEqual(t.cols.map((c) => c.label), ['X (%)', 'TC (%)', 'T']);
        assert.deepEqual(t.rows.map((r) => r.c.map((c) => (c ? c.v : c))),
                         [[0.9521, 50, 7], [null, null, 1]]);
        const d = asPercentages({ cols: [{ id: 'device_total_self_time_percent', label: 'D (%)' }],
                                  rows: [{ c: [{ v: 0.952 }] }] });
        assert.equal(d.rows[0].c[0].v, 95.2);
    });
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
