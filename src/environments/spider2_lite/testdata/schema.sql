CREATE TABLE t(id INTEGER, name TEXT, price REAL, qty INTEGER, code TEXT, raw BLOB);
INSERT INTO t VALUES (1, 'apple', 1.25, 3, '007', X'00ff');
INSERT INTO t VALUES (2, 'Banana', 0.5, NULL, '1e3', NULL);
INSERT INTO t VALUES (3, 'cherry', 10.0, 12, 'nan', X'41');
INSERT INTO t VALUES (4, 'date', 2.333, 0, 'x', NULL);
INSERT INTO t VALUES (5, 'ébène', 100.004, 7, ' 4_2 ', NULL);
INSERT INTO t VALUES (6, CAST(X'41ff42' AS TEXT), 3.0, 1, '-inf', NULL);
