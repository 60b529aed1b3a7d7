print("loaded %d rows" % 3)
