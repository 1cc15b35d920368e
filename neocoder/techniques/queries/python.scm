; Technique queries for Python (tree-sitter-python).  Each capture name is a
; technique with spaces written as underscores; captures starting with "_" are
; helpers.  What each technique means is defined in docs/techniques.md.
; Recursion needs the call graph and is found in code (parsed.py, graph_rules.py).

; for loop: for statements and every comprehension or generator expression
(for_statement) @for_loop
(list_comprehension) @for_loop
(set_comprehension) @for_loop
(dictionary_comprehension) @for_loop
(generator_expression) @for_loop

(while_statement) @while_loop

; if statement: if/elif statements, conditional expressions, comprehension filters
(if_statement) @if_statement
(conditional_expression) @if_statement
(if_clause) @if_statement

(break_statement) @break_statement
(continue_statement) @continue_statement
(pass_statement) @pass_statement
(match_statement) @match_statement

; tuple: a tuple value is built (literal, bare `a, b` on a right-hand side or in a
; return, or tuple()); unpacking targets such as `a, b = ...` do not count
(tuple) @tuple
(expression_list) @tuple
(call function: (identifier) @_f (#eq? @_f "tuple")) @tuple

(set) @set
(set_comprehension) @set
(call function: (identifier) @_f (#any-of? @_f "set" "frozenset")) @set

(dictionary) @dictionary
(dictionary_comprehension) @dictionary
(call function: (identifier) @_f (#any-of? @_f "dict" "defaultdict" "Counter" "OrderedDict")) @dictionary
(call function: (attribute attribute: (identifier) @_f)
  (#any-of? @_f "defaultdict" "Counter" "OrderedDict")) @dictionary

(call function: (identifier) @_f (#eq? @_f "sorted")) @sorting
(call function: (attribute attribute: (identifier) @_f) (#eq? @_f "sort")) @sorting

; heap: the heapq module or a priority queue, by use
(call function: (attribute object: (identifier) @_m) (#eq? @_m "heapq")) @heap
(call function: (identifier) @_f
  (#any-of? @_f "heappush" "heappop" "heapify" "heappushpop" "heapreplace")) @heap
(call function: (identifier) @_f (#eq? @_f "PriorityQueue")) @heap
(call function: (attribute attribute: (identifier) @_f) (#eq? @_f "PriorityQueue")) @heap

; queue: a FIFO from the library (collections.deque, queue.Queue) or a popleft()
(call function: (identifier) @_f (#any-of? @_f "deque" "Queue" "SimpleQueue")) @queue
(call function: (attribute attribute: (identifier) @_f) (#any-of? @_f "deque" "Queue" "SimpleQueue" "popleft")) @queue

; stack: LIFO removal, a pop() with no argument
(call function: (attribute attribute: (identifier) @_f (#eq? @_f "pop")) arguments: (argument_list . ")")) @stack

; hashmap: a mapping used for keyed lookup and update
(call function: (identifier) @_f (#any-of? @_f "Counter" "defaultdict")) @hashmap
(call function: (attribute attribute: (identifier) @_f) (#any-of? @_f "Counter" "defaultdict" "get" "setdefault" "items" "values" "keys")) @hashmap

; matrix operation: two-dimensional indexing, a list of lists built, or a transpose
(subscript value: (subscript)) @matrix_operation
(list_comprehension body: (list) @_row (#not-eq? @_row "[]")) @matrix_operation
(list_comprehension body: (list_comprehension)) @matrix_operation
(list_comprehension body: (binary_operator left: (list))) @matrix_operation
(call function: (identifier) @_f (#eq? @_f "zip") arguments: (argument_list (list_splat))) @matrix_operation

; binary search: the bisect module (a halved interval is found in loop_rules.py)
(call function: (identifier) @_f (#any-of? @_f "bisect" "bisect_left" "bisect_right" "insort" "insort_left" "insort_right")) @binary_search
(call function: (attribute object: (identifier) @_m (#eq? @_m "bisect"))) @binary_search

; dynamic programming: a table named dp / memo, or memoisation by lru_cache / cache
(subscript value: (identifier) @_v (#match? @_v "^(dp|memo|DP)[0-9_]*$")) @dynamic_programming
(decorator (identifier) @_d (#any-of? @_d "lru_cache" "cache")) @dynamic_programming
(decorator (call function: (identifier) @_d (#any-of? @_d "lru_cache" "cache"))) @dynamic_programming
(decorator (attribute attribute: (identifier) @_d (#any-of? @_d "lru_cache" "cache"))) @dynamic_programming
(decorator (call function: (attribute attribute: (identifier) @_d (#any-of? @_d "lru_cache" "cache")))) @dynamic_programming
