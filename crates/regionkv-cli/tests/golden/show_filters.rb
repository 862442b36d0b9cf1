# show_filters: the filter language's names, in the order HBase 2.x's shell prints them.
# exit: 1
show_filters
# It takes no arguments.
show_filters 'x'
