; Technique queries for C and C++ (tree-sitter-cpp).  Capture names are technique
; names with spaces as underscores; "_" captures are helpers.  Definitions are in
; docs/techniques.md; recursion comes from the call graph (parsed.py, graph_rules.py).

(for_statement) @for_loop
(for_range_loop) @for_loop

(while_statement) @while_loop
(do_statement) @while_loop

(if_statement) @if_statement
(conditional_expression) @if_statement

(break_statement) @break_statement
(continue_statement) @continue_statement

; C++ has no match statement; switch is its multi-way branch
(switch_statement) @match_statement

; containers and library algorithms, by their standard names
((type_identifier) @_t (#any-of? @_t "pair" "tuple")) @tuple
((identifier) @_f (#any-of? @_f "make_pair" "make_tuple" "tie")) @tuple

((type_identifier) @_t (#any-of? @_t "set" "unordered_set" "multiset" "unordered_multiset" "bitset")) @set

((type_identifier) @_t (#any-of? @_t "map" "multimap" "unordered_map" "unordered_multimap")) @dictionary
((type_identifier) @_t (#any-of? @_t "unordered_map" "unordered_multimap")) @hashmap

((type_identifier) @_t (#eq? @_t "priority_queue")) @heap
((identifier) @_f (#any-of? @_f "make_heap" "push_heap" "pop_heap" "sort_heap")) @heap

((type_identifier) @_t (#any-of? @_t "queue" "deque")) @queue
((type_identifier) @_t (#eq? @_t "stack")) @stack
((type_identifier) @_t (#any-of? @_t "list" "forward_list")) @linked_list

(call_expression function: (identifier) @_f
  (#any-of? @_f "sort" "stable_sort" "partial_sort" "nth_element" "qsort")) @sorting
(call_expression function: (qualified_identifier name: (identifier) @_f)
  (#any-of? @_f "sort" "stable_sort" "partial_sort" "nth_element")) @sorting
(call_expression function: (field_expression field: (field_identifier) @_f) (#eq? @_f "sort")) @sorting

(call_expression function: (identifier) @_f
  (#any-of? @_f "lower_bound" "upper_bound" "binary_search" "equal_range")) @binary_search
(call_expression function: (qualified_identifier name: (identifier) @_f)
  (#any-of? @_f "lower_bound" "upper_bound" "binary_search" "equal_range")) @binary_search
(call_expression function: (field_expression field: (field_identifier) @_f)
  (#any-of? @_f "lower_bound" "upper_bound")) @binary_search

; matrix operation: two-dimensional indexing, or a vector of vectors
(subscript_expression argument: (subscript_expression)) @matrix_operation
(template_type name: (type_identifier) @_v (#eq? @_v "vector")
  arguments: (template_argument_list (type_descriptor type: (template_type name: (type_identifier) @_w
    (#eq? @_w "vector"))))) @matrix_operation
(declaration declarator: (array_declarator declarator: (array_declarator))) @matrix_operation
