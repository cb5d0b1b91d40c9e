-- Thresholds of the rules tracedb summary applies itself (the advisor checks on data already in the
-- file, and the comparison verdicts), as rows of diagnosis_threshold (schema/083): data, not code,
-- each with the reference it comes from. Inserted when missing (INSERT OR IGNORE), so a changed
-- value survives re-installation; a database without a row skips the finding that needs it.

INSERT OR IGNORE INTO diagnosis_threshold (name, value, unit, used_by, source, note) VALUES
    ('comm_alignment.base_size_bytes', 512, 'bytes', 'tracedb summary (communication sizes)',
     'msprof-analyze advisor ByteAlignmentChecker (msprof_analyze/advisor/analyzer/communication/alignment/byte_alignment_checker.py: _BASE_SIZE = 512; an SDMA Memcpy / Reduce_Inline task of an HCCL op whose size is no multiple of it is abnormal, "Found the data size of N communication operators is not aligned")',
     'an SDMA copy (not on chip) of a communication op moving a size that is no multiple of this is unaligned'),
    ('comm_alignment.min_size_bytes', 512, 'bytes', 'tracedb summary (communication sizes)',
     'msprof-analyze advisor ByteAlignmentChecker (rules byte_alignment.yaml min_size: 512; tasks of this size or smaller are not checked)',
     'copies of this size or smaller are not checked for alignment'),
    ('compare.change_ratio', 0.2, 'ratio', 'tracedb summary (comparison headline, top op)',
     'MindInsight (profiler comparison rule: a change within ±20 % of the baseline is no change)',
     'a comparison / baseline ratio beyond 1 ± this is a change (degraded above, improved below)'),
    ('sync_copy.step_ratio', 0.01, 'ratio', 'tracedb summary (blocking copies and synchronisations)',
     'tracedb: a blocking call group taking less than 1 % of the step is not worth a line (sync_copy lists every one)',
     'share of the step a group of blocking host calls must take for the summary to name it');
