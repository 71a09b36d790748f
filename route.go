package axp
