print("footprint")
